// `npm run chain:faults -- --target http://127.0.0.1:8899 --profile harsh --seed 7 --port 9899`: seeded
// faults in front of any Solana JSON-RPC endpoint (and its websocket, --ws-target, default port + 1), the
// proxy's websocket on --ws-port (default --port + 1). --set knob=value (repeatable) changes one knob of
// the profile (docs/development.md#fault-injecting-chain lists them). faults_* JSON-RPC methods on the
// proxy's port are its control. On SIGINT/SIGTERM it prints what it injected and stops.
import { parseArgs } from 'node:util';
import { PROFILE_NAMES, type ProfileName, parseKnob } from './profiles.ts';
import { startFaultProxy } from './proxy.ts';

async function main() {
  const { values: flags } = parseArgs({
    options: {
      target: { type: 'string' },
      'ws-target': { type: 'string' },
      profile: { type: 'string', default: 'harsh' },
      seed: { type: 'string', default: '1' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '9899' },
      'ws-port': { type: 'string' },
      set: { type: 'string', multiple: true, default: [] },
    },
  });
  if (!flags.target) throw new Error('--target <http url of the JSON-RPC endpoint> is required');
  if (!PROFILE_NAMES.includes(flags.profile as ProfileName)) {
    throw new Error(`--profile: one of ${PROFILE_NAMES.join(', ')}`);
  }
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error('--port: a TCP port');
  const proxy = await startFaultProxy({
    target: flags.target,
    ...(flags['ws-target'] ? { wsTarget: flags['ws-target'] } : {}),
    host: flags.host,
    port,
    ...(flags['ws-port'] ? { wsPort: Number(flags['ws-port']) } : {}),
    profile: flags.profile as ProfileName,
    changes: Object.fromEntries(flags.set.map(parseKnob)),
    seed: flags.seed,
    log: (line) => console.log(JSON.stringify({ msg: line, at: new Date().toISOString() })),
  });
  console.log(
    JSON.stringify({
      msg: 'fault proxy listening',
      url: proxy.url,
      wsUrl: proxy.wsUrl,
      target: new URL(flags.target).origin,
      profile: proxy.control.profile().name,
      seed: flags.seed,
    }),
  );
  const stop = async () => {
    console.log(JSON.stringify({ msg: 'fault proxy stopping', stats: proxy.control.stats() }));
    await proxy.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e) => {
  console.error(`chain:faults: ${(e as Error).message}`);
  process.exit(1);
});
