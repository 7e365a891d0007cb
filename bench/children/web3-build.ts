// Baseline for the settlement row, run as its own pinned process on the server's core: plain web3.js
// 1.x building and serializing an unsigned one-instruction transaction with 5 accounts, as fast as it
// goes for `seconds` (argv[2]). Prints one JSON line.
import { randomBytes } from 'node:crypto';
import { PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';

const seconds = Number(process.argv[2] ?? 5);
// Fresh-looking keys each time (a settlement's escrows are new addresses), drawn from a pool made up front.
const pool = Array.from({ length: 4_096 }, () => new PublicKey(randomBytes(32)));
const programId = new PublicKey(randomBytes(32));
const blockhash = new PublicKey(randomBytes(32)).toBase58();
let next = 0;
const key = () => pool[next++ % pool.length] as PublicKey;

function buildOne(): Buffer {
  const feePayer = key();
  const ix = new TransactionInstruction({
    programId,
    keys: [
      { pubkey: feePayer, isSigner: true, isWritable: true },
      { pubkey: key(), isSigner: false, isWritable: true },
      { pubkey: key(), isSigner: false, isWritable: true },
      { pubkey: key(), isSigner: false, isWritable: false },
      { pubkey: key(), isSigner: false, isWritable: false },
    ],
    data: randomBytes(64),
  });
  const tx = new Transaction({ feePayer, blockhash, lastValidBlockHeight: 1_000 }).add(ix);
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false });
}

function run(ms: number): { count: number; ms: number } {
  const start = performance.now();
  let count = 0;
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 50; i++) buildOne();
    count += 50;
    now = performance.now();
  }
  return { count, ms: now - start };
}

run(1_000); // warm-up
const { count, ms } = run(seconds * 1000);
process.stdout.write(`${JSON.stringify({ count, seconds: ms / 1000, perSecond: count / (ms / 1000) })}\n`);
