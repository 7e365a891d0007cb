// Child process for the kill -9 test: airdrops in a loop on an embedded chain and prints each
// signature only after the chain returned it — i.e. after the chain says it is durable.

import { Keypair, PublicKey } from '@solana/web3.js';
import { createEmbeddedChain } from '../../src/chain/embedded/index.ts';
import { INVENTORY, MINTS, USDC } from './fixtures.ts';

const [dataDir, makerSecret, wallet] = process.argv.slice(2) as [string, string, string];
const chain = createEmbeddedChain({
  dataDir,
  makerKeypair: Keypair.fromSecretKey(Uint8Array.from(JSON.parse(makerSecret))),
  mints: MINTS,
  makerInventory: INVENTORY,
});
const to = new PublicKey(wallet);
for (let i = 1; ; i++) {
  const { signature } = await chain.airdrop({ wallet: to, mint: USDC, amount: BigInt(i) });
  process.stdout.write(`${JSON.stringify({ i, signature })}\n`);
}
