// The ceiling of the swap row: raw litesvm executing the very transactions the service's chain recorded,
// pre-signed, in the order it recorded them, from the chain state it had before the timed window. Set up
// as the embedded ledger sets up its VM (our programs, native mints, sigverify on, blockhash check off),
// with the Clock sysvar set from each recorded transaction's slot and block time.
import { join } from 'node:path';
import { PublicKey } from '@solana/web3.js';
import Database from 'better-sqlite3';
import { Account, Clock, FailedTransactionMetadata, LiteSvm } from 'litesvm/dist/internal.js';
import { SLOT_HASHES_KEPT } from '../src/chain/embedded/ledger.ts';
import { DEFAULT_HTLC_PROGRAM_ID, loadHtlcProgram } from '../src/chain/htlc/index.ts';
import { DEFAULT_AMM_PROGRAM_ID, loadAmmProgram } from '../src/venue/program.ts';

const SLOTS_PER_EPOCH = 432_000n;

export interface ReplayInput {
  /** DATA_DIR/chain as it was before the window (a copy taken with the service stopped). */
  beforeDir: string;
  /** DATA_DIR/chain after the window, the service stopped. */
  afterDir: string;
  /** Signatures of the transactions whose execution is timed (those of the swaps the window counted). */
  timed: string[];
}

export interface ReplayResult {
  /** Transactions recorded after the copy, all replayed in seq order (untimed ones keep the state right). */
  replayed: number;
  timedTransactions: number;
  timedSeconds: number;
  /** Replays whose success or failure differs from the recorded outcome, with the first few signatures. */
  mismatches: number;
  mismatchExamples: string[];
  /** Timed signatures the chain never recorded. */
  missing: number;
}

interface TxRow {
  seq: number;
  signature: string;
  slot: number;
  block_time: number;
  err: string | null;
  tx: Buffer;
}

const open = (dir: string) =>
  new Database(join(dir, 'chain.sqlite'), { readonly: true, fileMustExist: true });

export function replayWindow(input: ReplayInput): ReplayResult {
  const before = open(input.beforeDir);
  const after = open(input.afterDir);
  try {
    const svm = new LiteSvm();
    svm.setSigverify(true);
    svm.setBlockhashCheck(false);
    svm.withNativeMints();
    svm.addProgram(DEFAULT_HTLC_PROGRAM_ID.toBytes(), loadHtlcProgram());
    // The venue's AMM, as the embedded chain deploys it with its pools: the keeper's swaps (and hedges) run it.
    svm.addProgram(DEFAULT_AMM_PROGRAM_ID.toBytes(), loadAmmProgram());
    const accounts = before
      .prepare('SELECT address, lamports, owner, executable, data FROM accounts')
      .all() as { address: string; lamports: string; owner: string; executable: number; data: Buffer }[];
    for (const a of accounts) {
      svm.setAccount(
        new PublicKey(a.address).toBytes(),
        new Account(
          BigInt(a.lamports),
          new Uint8Array(a.data),
          new PublicKey(a.owner).toBytes(),
          a.executable === 1,
          0n,
        ),
      );
    }
    const meta = (key: string) =>
      (before.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)
        ?.value;
    const genesisUnix = BigInt(meta('genesis_unix') ?? '0');
    const fromSeq =
      (before.prepare('SELECT MAX(seq) AS seq FROM transactions').get() as { seq: number | null }).seq ?? 0;
    const rows = after
      .prepare(
        'SELECT seq, signature, slot, block_time, err, tx FROM transactions WHERE seq > ? ORDER BY seq',
      )
      .all(fromSeq) as TxRow[];

    const timed = new Set(input.timed);
    let timedNs = 0n;
    let timedTransactions = 0;
    let mismatches = 0;
    const mismatchExamples: string[] = [];
    let clockAt = '';
    for (const row of rows) {
      const at = `${row.slot}:${row.block_time}`;
      if (at !== clockAt) {
        const epoch = BigInt(row.slot) / SLOTS_PER_EPOCH;
        svm.setClock(new Clock(BigInt(row.slot), genesisUnix, epoch, epoch + 1n, BigInt(row.block_time)));
        // The recent slots, as the ledger keeps them: a lookup table is created against one of them (the
        // venue makes its table once the chain is past slot 0, so its creation can fall in the window).
        const hashes = [];
        for (let s = row.slot - 1; s >= Math.max(0, row.slot - SLOT_HASHES_KEPT); s--) {
          hashes.push({ slot: BigInt(s), hash: PublicKey.default.toBase58() });
        }
        svm.setSlotHashes(hashes);
        clockAt = at;
      }
      const bytes = new Uint8Array(row.tx);
      // Every recorded transaction is legacy (the embedded chain refuses lookup tables; v0 has the 0x80 prefix).
      const versioned = ((bytes[1 + 64 * (bytes[0] ?? 0)] ?? 0) & 0x80) !== 0;
      const start = process.hrtime.bigint();
      const result = versioned ? svm.sendVersionedTransaction(bytes) : svm.sendLegacyTransaction(bytes);
      const spent = process.hrtime.bigint() - start;
      if (timed.has(row.signature)) {
        timedNs += spent;
        timedTransactions += 1;
      }
      const failed = result instanceof FailedTransactionMetadata;
      if (failed !== (row.err !== null)) {
        mismatches += 1;
        if (mismatchExamples.length < 3) {
          mismatchExamples.push(
            `${row.signature} recorded ${row.err ?? 'ok'}, replayed ${failed ? 'failed' : 'ok'}`,
          );
        }
      }
    }
    const recorded = new Set(rows.map((r) => r.signature));
    return {
      replayed: rows.length,
      timedTransactions,
      timedSeconds: Number(timedNs) / 1e9,
      mismatches,
      mismatchExamples,
      missing: input.timed.filter((s) => !recorded.has(s)).length,
    };
  } finally {
    before.close();
    after.close();
  }
}
