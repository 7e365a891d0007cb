// `npm run chain`: the embedded chain as a loopback Solana JSON-RPC server, its websocket on port + 1.
// Env: CHAIN_PORT (8899; websocket on CHAIN_PORT + 1), CHAIN_HOST (127.0.0.1), DATA_DIR (./data; chain state in DATA_DIR/chain),
// CONFIG (the service's config file: assets and maker inventory), MAKER_KEYPAIR_PATH (the maker to fund; created if absent).

import { join, resolve } from 'node:path';
import { PublicKey } from '@solana/web3.js';
import { loadConfig } from '../../config/index.ts';
import { DEFAULT_HTLC_PROGRAM_ID } from '../htlc/index.ts';
import { loadOrCreateKeypairFile } from '../signer.ts';
import { configGenesis, startChainServer } from './index.ts';

async function main() {
  const dataDir = resolve(process.env.DATA_DIR ?? 'data');
  const config = loadConfig(process.env.CONFIG || undefined);
  const keypairPath =
    process.env.MAKER_KEYPAIR_PATH ??
    (config.chain.kind === 'rpc' ? config.chain.makerKeypairPath : join(dataDir, 'maker-keypair.json'));
  const maker = loadOrCreateKeypairFile(keypairPath);
  const programId = config.chain.programId ? new PublicKey(config.chain.programId) : DEFAULT_HTLC_PROGRAM_ID;

  const server = await startChainServer({
    dataDir: join(dataDir, 'chain'),
    host: process.env.CHAIN_HOST ?? '127.0.0.1',
    port: Number(process.env.CHAIN_PORT ?? 8899),
    programId,
    ...configGenesis(config, maker),
  });
  // Public keys only: the maker key stays in its file.
  console.log(
    JSON.stringify({
      msg: 'loopback chain listening',
      url: server.url,
      wsUrl: server.wsUrl,
      programId: programId.toBase58(),
      maker: maker.publicKey.toBase58(),
      makerKeypairPath: keypairPath,
      faucet: server.ledger.faucet.publicKey.toBase58(),
      slot: server.ledger.slot(),
    }),
  );
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e) => {
  console.error(`chain: ${(e as Error).message}`);
  process.exit(1);
});
