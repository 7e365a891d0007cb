// `npm run chain`: the embedded chain as a loopback Solana JSON-RPC server, its websocket on port + 1.
// Env: CHAIN_PORT (8899; websocket on CHAIN_PORT + 1), CHAIN_HOST (127.0.0.1), DATA_DIR (./data; chain state in DATA_DIR/chain),
// CONFIG (the service's config file: assets and maker inventory), MAKER_KEYPAIR_PATH (the maker to fund; created if absent).
// The sponsored Pyth feeds are published at their real addresses and move on a seeded walk. Flags, each
// repeatable: --pyth-freeze SOL, --pyth-stale SOL, --pyth-jump SOL:+500 (bps, once at start),
// --pyth-seed <text> (default 1), --pyth-interval-ms <ms> (default 1000), --no-pyth. While it runs,
// the dev_pyth method (loopbackDevChain(url).pyth) does the same.
// --slot-ms <ms> [--confirmation-slots N] [--finalization-slots N]: the chain keeps real time — slots on the
// clock, confirmed N (2) and finalized N (32) slots behind the tip, every read and subscription at its
// commitment (without a flag, the CONFIG's chain.timing when its chain is embedded; else instant finality).
// --faults <none|mild|harsh> [--faults-seed N] [--faults-set knob=value]…: the chain comes up behind the
// fault proxy (src/dev-chain/faults/). The proxy takes CHAIN_PORT and CHAIN_PORT + 1, the addresses to give
// the service; the chain itself listens on free ports, printed as upstreamUrl / upstreamWsUrl (for takers
// or scripts that should reach it without faults).

import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PublicKey } from '@solana/web3.js';
import { type ChainTiming, DEFAULT_TIMING } from '../chain/embedded/ledger.ts';
import { DEFAULT_HTLC_PROGRAM_ID } from '../chain/htlc/index.ts';
import { type PythPublisher, sponsoredFeedSpecs } from '../chain/pyth/publisher.ts';
import { loadOrCreateKeypairFile } from '../chain/signer.ts';
import { type Config, loadConfig } from '../config/index.ts';
import { embeddedVenueOptions } from '../venue/config.ts';
import {
  type FaultProxy,
  PROFILE_NAMES,
  type ProfileName,
  parseKnob,
  startFaultProxy,
} from './faults/index.ts';
import { type ChainServer, configGenesis, startChainServer } from './index.ts';

const readFlags = () =>
  parseArgs({
    options: {
      'pyth-freeze': { type: 'string', multiple: true, default: [] },
      'pyth-stale': { type: 'string', multiple: true, default: [] },
      'pyth-jump': { type: 'string', multiple: true, default: [] },
      'pyth-seed': { type: 'string', default: '1' },
      'pyth-interval-ms': { type: 'string', default: '1000' },
      'no-pyth': { type: 'boolean', default: false },
      faults: { type: 'string' },
      'faults-seed': { type: 'string', default: '1' },
      'faults-set': { type: 'string', multiple: true, default: [] },
      'slot-ms': { type: 'string' },
      'confirmation-slots': { type: 'string' },
      'finalization-slots': { type: 'string' },
    },
  }).values;
type Flags = ReturnType<typeof readFlags>;

/** `SOL:+500` → ['SOL', 500]. */
function parseJump(text: string): [string, number] {
  const match = /^([A-Za-z0-9]+):([+-]?\d+)$/.exec(text);
  if (!match) throw new Error(`--pyth-jump ${text}: expected SYMBOL:±BPS, e.g. SOL:+500`);
  return [match[1] as string, Number(match[2])];
}

/** The timing the flags ask for (each unset one at a cluster's default), else the config's, else none. */
function timingOf(flags: Flags, config: Config): ChainTiming | null {
  const asked = [flags['slot-ms'], flags['confirmation-slots'], flags['finalization-slots']];
  if (asked.every((flag) => flag === undefined)) {
    return config.chain.kind === 'embedded' ? config.chain.timing : null;
  }
  const whole = (text: string | undefined, name: string, fallback: number, min: number) => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) throw new Error(`--${name}: a whole number ≥ ${min}`);
    return value;
  };
  const timing = {
    slotMs: whole(flags['slot-ms'], 'slot-ms', DEFAULT_TIMING.slotMs, 10),
    confirmationSlots: whole(
      flags['confirmation-slots'],
      'confirmation-slots',
      DEFAULT_TIMING.confirmationSlots,
      0,
    ),
    finalizationSlots: whole(
      flags['finalization-slots'],
      'finalization-slots',
      DEFAULT_TIMING.finalizationSlots,
      0,
    ),
  };
  if (timing.finalizationSlots < timing.confirmationSlots) {
    throw new Error('--finalization-slots: at least --confirmation-slots');
  }
  return timing;
}

function applyPythFlags(pyth: PythPublisher, flags: Flags): void {
  for (const symbol of flags['pyth-freeze']) pyth.freeze(symbol);
  for (const symbol of flags['pyth-stale']) pyth.stale(symbol);
  for (const [symbol, bps] of flags['pyth-jump'].map(parseJump)) pyth.jump(symbol, bps);
}

async function main() {
  const settings = readSettings();
  const { flags, dataDir, config, maker, programId, venue, faults, host, port, timing, intervalMs } =
    settings;
  const server = await startChainServer({
    dataDir: join(dataDir, 'chain'),
    host,
    // Behind the proxy the chain takes any free ports: the advertised ones are the proxy's.
    port: faults === undefined ? port : 0,
    programId,
    ...configGenesis(config, maker),
    timing,
    ...(venue ? { venue } : {}),
    ...(flags['no-pyth']
      ? {}
      : { pyth: { feeds: sponsoredFeedSpecs(), seed: flags['pyth-seed'], intervalMs } }),
  });
  let proxy: FaultProxy | null = null;
  try {
    if (server.pyth) applyPythFlags(server.pyth, flags);
    if (faults !== undefined) proxy = await startProxy(server, settings, faults);
  } catch (e) {
    await server.close();
    throw e;
  }
  announce(server, proxy, settings);
  const stop = async () => {
    if (proxy) console.log(JSON.stringify({ msg: 'faults injected', stats: proxy.control.stats() }));
    await proxy?.close();
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

type Settings = ReturnType<typeof readSettings>;

/** The flags and the environment, checked, and what they name: the config, the maker, the program, the venue. */
function readSettings() {
  const flags = readFlags();
  const intervalMs = Number(flags['pyth-interval-ms']);
  if (!Number.isInteger(intervalMs) || intervalMs < 0)
    throw new Error('--pyth-interval-ms: a whole number ≥ 0');
  const dataDir = resolve(process.env.DATA_DIR ?? 'data');
  const config = loadConfig(process.env.CONFIG || undefined);
  const keypairPath =
    process.env.MAKER_KEYPAIR_PATH ??
    (config.chain.kind === 'rpc' ? config.chain.makerKeypairPath : join(dataDir, 'maker-keypair.json'));
  const maker = loadOrCreateKeypairFile(keypairPath);
  const programId = config.chain.programId ? new PublicKey(config.chain.programId) : DEFAULT_HTLC_PROGRAM_ID;
  const venue = embeddedVenueOptions(config, (e) => console.error(`venue: ${e.message}`));
  const faults = flags.faults as ProfileName | undefined;
  if (faults !== undefined && !PROFILE_NAMES.includes(faults)) {
    throw new Error(`--faults: one of ${PROFILE_NAMES.join(', ')}`);
  }
  const host = process.env.CHAIN_HOST ?? '127.0.0.1';
  const port = Number(process.env.CHAIN_PORT ?? 8899);
  const timing = timingOf(flags, config);
  return {
    flags,
    intervalMs,
    dataDir,
    config,
    keypairPath,
    maker,
    programId,
    venue,
    faults,
    host,
    port,
    timing,
  };
}

/** The fault proxy on the advertised ports, in front of the chain's. */
function startProxy(
  server: ChainServer,
  { flags, host, port }: Settings,
  profile: ProfileName,
): Promise<FaultProxy> {
  return startFaultProxy({
    target: server.url,
    wsTarget: server.wsUrl,
    host,
    port,
    profile,
    changes: Object.fromEntries(flags['faults-set'].map(parseKnob)),
    seed: flags['faults-seed'],
    log: (line) => console.log(JSON.stringify({ msg: `faults: ${line}`, at: new Date().toISOString() })),
  });
}

/** One JSON line: where to reach the chain, and what it holds. Public keys only: the maker key stays in its file. */
function announce(server: ChainServer, proxy: FaultProxy | null, settings: Settings): void {
  const { flags, programId, maker, keypairPath, timing } = settings;
  console.log(
    JSON.stringify({
      msg: 'loopback chain listening',
      url: proxy?.url ?? server.url,
      wsUrl: proxy?.wsUrl ?? server.wsUrl,
      ...(proxy
        ? {
            faults: proxy.control.profile().name,
            faultsSeed: flags['faults-seed'],
            upstreamUrl: server.url,
            upstreamWsUrl: server.wsUrl,
          }
        : {}),
      programId: programId.toBase58(),
      maker: maker.publicKey.toBase58(),
      makerKeypairPath: keypairPath,
      faucet: server.ledger.faucet.publicKey.toBase58(),
      slot: server.ledger.slot(),
      timing,
      pyth: server.pyth?.symbols.map((symbol) => ({ symbol, mode: server.pyth?.mode(symbol) })) ?? [],
      jupiterUrl: server.jupiterUrl,
    }),
  );
}

main().catch((e) => {
  console.error(`chain: ${(e as Error).message}`);
  process.exit(1);
});
