// The embedded chain keeping real time: every read honours its commitment. The wall clock is the test's,
// so slots move only when the test moves it: a transaction is seen at processed when it lands, at confirmed
// `confirmationSlots` later, at finalized `finalizationSlots` later; blockhashes expire by block height as
// each commitment sees it. The instant chain (no timing) stays what it was: every commitment at once.
import { rmSync } from 'node:fs';
import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChainTiming, CLOCK_SYSVAR, EmbeddedLedger } from '../../src/chain/embedded/ledger.ts';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../src/chain/htlc/index.ts';
import { signWith } from '../../src/chain/signer.ts';
import { MINTS, tempDir, testEmbeddedChain, USDC } from './fixtures.ts';

const TIMING: ChainTiming = { slotMs: 400, confirmationSlots: 2, finalizationSlots: 32 };
const LAMPORTS = 1_000_000n;

const opened: { ledger: EmbeddedLedger; dir: string }[] = [];
afterEach(() => {
  for (const { ledger, dir } of opened.splice(0)) {
    ledger.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A ledger on the test's clock, at the start of a slot. */
function chain(timing: ChainTiming | null = TIMING) {
  const dir = tempDir('commitments');
  let now = 1_800_000_000_000;
  const ledger = new EmbeddedLedger({
    dataDir: dir,
    programId: DEFAULT_HTLC_PROGRAM_ID,
    program: null,
    mints: MINTS,
    funding: [],
    clock: () => now,
    timing,
  });
  opened.push({ ledger, dir });
  const slotMs = timing?.slotMs ?? 400;
  return {
    ledger,
    /** Moves the wall clock on by whole slots. */
    slots(n: number) {
      now += n * slotMs;
    },
  };
}

describe('an embedded chain that keeps real time', () => {
  it('shows a transaction at processed when it lands, at confirmed and finalized only once their lags pass', () => {
    const { ledger, slots } = chain();
    const wallet = Keypair.generate().publicKey;
    const signature = ledger.requestAirdrop(wallet, LAMPORTS);
    const landed = ledger.transaction(signature)?.slot as number;
    const seen = () => [
      ledger.transaction(signature, 'processed') !== null,
      ledger.transaction(signature, 'confirmed') !== null,
      ledger.transaction(signature, 'finalized') !== null,
    ];

    expect(seen()).toEqual([true, false, false]);
    expect(ledger.commitmentOf(landed)).toBe('processed');
    slots(1);
    expect(seen()).toEqual([true, false, false]);
    slots(1);
    expect(seen()).toEqual([true, true, false]);
    expect(ledger.commitmentOf(landed)).toBe('confirmed');
    slots(29);
    expect(seen()).toEqual([true, true, false]);
    slots(1);
    expect(seen()).toEqual([true, true, true]);
    expect(ledger.commitmentOf(landed)).toBe('finalized');
  });

  it('reads each account as its commitment sees it: the state before the transactions it does not see yet', () => {
    const { ledger, slots } = chain();
    const wallet = Keypair.generate().publicKey;
    ledger.requestAirdrop(wallet, LAMPORTS);
    slots(2);
    ledger.requestAirdrop(wallet, 2n * LAMPORTS);
    const balances = () => [
      ledger.balance(wallet, 'processed'),
      ledger.balance(wallet, 'confirmed'),
      ledger.balance(wallet, 'finalized'),
    ];

    expect(balances()).toEqual([3n * LAMPORTS, LAMPORTS, 0n]);
    expect(ledger.getAccount(wallet, 'finalized')).toBeNull();
    slots(2);
    expect(balances()).toEqual([3n * LAMPORTS, 3n * LAMPORTS, 0n]);
    slots(28);
    expect(balances()).toEqual([3n * LAMPORTS, 3n * LAMPORTS, LAMPORTS]);
    slots(2);
    expect(balances()).toEqual([3n * LAMPORTS, 3n * LAMPORTS, 3n * LAMPORTS]);
  });

  it('keeps slots, block heights and the Clock sysvar of each commitment behind the tip by its lag', () => {
    const { ledger, slots } = chain();
    slots(100);
    const tip = ledger.slot();
    expect([ledger.slotAt('processed'), ledger.slotAt('confirmed'), ledger.slotAt('finalized')]).toEqual([
      tip,
      tip - 2,
      tip - 32,
    ]);
    const clock = (commitment: 'processed' | 'finalized') =>
      Buffer.from(ledger.getAccount(CLOCK_SYSVAR, commitment)?.data ?? []).readBigUInt64LE(0);
    expect(clock('processed')).toBe(BigInt(tip));
    expect(clock('finalized')).toBe(BigInt(tip - 32));
    expect(ledger.clockAt('finalized').unix).toBeLessThan(ledger.clockAt('processed').unix);
  });

  it('expires a blockhash by block height, as each commitment sees the height', () => {
    const { ledger, slots } = chain();
    slots(40);
    const { blockhash, lastValidBlockHeight, slot } = ledger.latestBlockhash();
    expect(lastValidBlockHeight).toBe(slot + 150);
    // Issued at the tip: finalized does not know it yet, and names its own older one.
    expect(ledger.blockhashSlot(blockhash, 'processed')).toBe(slot);
    expect(ledger.blockhashSlot(blockhash, 'finalized')).toBeNull();
    expect(ledger.latestBlockhash('finalized').lastValidBlockHeight).toBe(slot - 32 + 150);

    slots(150);
    expect(ledger.blockhashSlot(blockhash)).toBe(slot);
    slots(1);
    // Past its last valid block height at the tip: a transaction on it is refused there…
    expect(ledger.blockhashSlot(blockhash)).toBeNull();
    expect(() => ledger.execute(transferOn(ledger, blockhash))).toThrow(/blockhash/);
    // …while finalized, 32 blocks behind, still counts it valid until its own height passes.
    expect(ledger.blockhashSlot(blockhash, 'finalized')).toBe(slot);
    slots(32);
    expect(ledger.blockhashSlot(blockhash, 'finalized')).toBeNull();
  });

  it('tells each commitment’s listeners of a write once that commitment sees it', () => {
    const { ledger, slots } = chain();
    const heard: string[] = [];
    for (const commitment of ['processed', 'confirmed', 'finalized'] as const) {
      ledger.onWrite((write) => heard.push(`${commitment} ${write.signature}`), commitment);
    }
    const signature = ledger.requestAirdrop(Keypair.generate().publicKey, LAMPORTS);
    expect(heard).toEqual([`processed ${signature}`]);
    slots(2);
    ledger.advanceClock(0);
    expect(heard).toEqual([`processed ${signature}`, `confirmed ${signature}`]);
    slots(30);
    ledger.advanceClock(0);
    expect(heard).toEqual([`processed ${signature}`, `confirmed ${signature}`, `finalized ${signature}`]);
  });

  it('finalizes on restart what had landed before it (what it kept to read behind the tip was in memory)', () => {
    const dir = tempDir('commitments-restart');
    const now = 1_800_000_000_000;
    const open = () =>
      new EmbeddedLedger({
        dataDir: dir,
        programId: DEFAULT_HTLC_PROGRAM_ID,
        program: null,
        mints: MINTS,
        funding: [],
        clock: () => now,
        timing: TIMING,
      });
    let ledger = open();
    const wallet = Keypair.generate().publicKey;
    const signature = ledger.requestAirdrop(wallet, LAMPORTS);
    expect(ledger.transaction(signature, 'finalized')).toBeNull();
    ledger.close();
    ledger = open();
    opened.push({ ledger, dir });
    expect(ledger.transaction(signature, 'finalized')).not.toBeNull();
    expect(ledger.balance(wallet, 'finalized')).toBe(LAMPORTS);
  });
});

describe('a rollback (a fork) on the chain that keeps real time', () => {
  it('takes back every transaction from a confirmed, unfinalized slot on: records gone, accounts as before', () => {
    const { ledger, slots } = chain();
    const wallet = Keypair.generate().publicKey;
    const kept = ledger.requestAirdrop(wallet, LAMPORTS);
    slots(3);
    const forked = ledger.requestAirdrop(wallet, 2n * LAMPORTS);
    const fromSlot = ledger.transaction(forked)?.slot as number;
    slots(1);
    const later = ledger.requestAirdrop(wallet, 4n * LAMPORTS);
    slots(2);
    ledger.advanceClock(0); // what the slot timer does: tells confirmed of `forked`
    expect(ledger.transaction(forked, 'confirmed')).not.toBeNull();
    const heard: { commitment: string; signature: string | null; addresses: string[] }[] = [];
    for (const commitment of ['processed', 'confirmed', 'finalized'] as const) {
      ledger.onWrite((w) => heard.push({ commitment, ...w }), commitment);
    }

    expect(ledger.rollback(fromSlot).dropped).toEqual([forked, later]);
    for (const signature of [forked, later]) expect(ledger.transaction(signature)).toBeNull();
    expect(ledger.transaction(kept)).not.toBeNull();
    expect(ledger.balance(wallet)).toBe(LAMPORTS);
    expect(ledger.balance(wallet, 'confirmed')).toBe(LAMPORTS);
    expect(ledger.transactionsForAddress(wallet.toBase58(), 10).map((r) => r.signature)).toEqual([kept]);
    // Processed and confirmed saw those writes go: each hears the wallet restored; finalized never saw them.
    expect(heard.map((h) => h.commitment).sort()).toEqual(['confirmed', 'processed']);
    for (const h of heard) {
      expect(h.signature).toBeNull();
      expect(h.addresses).toContain(wallet.toBase58());
    }
    // The chain goes on from there: the kept one finalizes, a new transaction lands.
    slots(40);
    expect(ledger.transaction(kept, 'finalized')).not.toBeNull();
    ledger.requestAirdrop(wallet, LAMPORTS);
    expect(ledger.balance(wallet)).toBe(2n * LAMPORTS);
  });

  it('restores an account a rolled-back transaction created as absent, durably', () => {
    const dir = tempDir('commitments-rollback');
    const now = 1_800_000_000_000;
    const open = () =>
      new EmbeddedLedger({
        dataDir: dir,
        programId: DEFAULT_HTLC_PROGRAM_ID,
        program: null,
        mints: MINTS,
        funding: [],
        clock: () => now,
        timing: TIMING,
      });
    let ledger = open();
    ledger.requestAirdrop(Keypair.generate().publicKey, LAMPORTS);
    const wallet = Keypair.generate().publicKey;
    const signature = ledger.requestAirdrop(wallet, LAMPORTS);
    ledger.rollback(ledger.transaction(signature)?.slot as number);
    expect(ledger.getAccount(wallet)).toBeNull();
    ledger.close();
    ledger = open();
    opened.push({ ledger, dir });
    expect(ledger.getAccount(wallet)).toBeNull();
    expect(ledger.transaction(signature)).toBeNull();
  });

  it('refuses a finalized slot', () => {
    const { ledger, slots } = chain();
    const signature = ledger.requestAirdrop(Keypair.generate().publicKey, LAMPORTS);
    slots(32);
    expect(() => ledger.rollback(ledger.transaction(signature)?.slot as number)).toThrow(/finalized up to/);
    expect(ledger.transaction(signature)).not.toBeNull();
  });
});

describe('the instant chain (no timing)', () => {
  it('shows every transaction at every commitment the moment it lands', () => {
    const { ledger } = chain(null);
    const wallet = Keypair.generate().publicKey;
    const signature = ledger.requestAirdrop(wallet, LAMPORTS);
    expect(ledger.transaction(signature, 'finalized')).not.toBeNull();
    expect(ledger.commitmentOf(ledger.transaction(signature)?.slot as number)).toBe('finalized');
    expect(ledger.balance(wallet, 'finalized')).toBe(LAMPORTS);
    expect(ledger.slotAt('finalized')).toBe(ledger.slot());
    expect(() => ledger.rollback(ledger.slot())).toThrow(/instant chain/);
  });
});

/** A faucet transfer signed on the given blockhash. */
function transferOn(ledger: EmbeddedLedger, blockhash: string): Uint8Array {
  const tx = new Transaction({ feePayer: ledger.faucet.publicKey, recentBlockhash: blockhash }).add(
    SystemProgram.transfer({
      fromPubkey: ledger.faucet.publicKey,
      toPubkey: Keypair.generate().publicKey,
      lamports: 1_000_000,
    }),
  );
  return signWith(tx, ledger.faucet).bytes;
}

describe('confirm() on an embedded chain that keeps real time', () => {
  it('waits to be told a signature reached the commitment, reading it a few times, not every 20 ms', async () => {
    const dir = tempDir('confirm-told');
    const chain = testEmbeddedChain(dir, Keypair.generate(), {
      timing: { slotMs: 50, confirmationSlots: 2, finalizationSlots: 10 },
    });
    try {
      const { signature } = await chain.airdrop({
        wallet: Keypair.generate().publicKey,
        mint: USDC,
        amount: 1_000_000n,
      });
      const read = chain.ledger.transaction.bind(chain.ledger);
      let reads = 0;
      chain.ledger.transaction = (...args: Parameters<typeof read>) => {
        reads++;
        return read(...args);
      };
      const started = Date.now();
      const state = await chain.confirm(signature, 'finalized', 30_000);
      const waited = Date.now() - started;
      expect(state.status).toBe('finalized');
      // Finality is ~10 slots of 50 ms away: polling every 20 ms would read it ~25 times; told, it reads it
      // once before and once after each time it is told (or once a second, whatever it was told).
      expect(reads, `${reads} reads in ${waited} ms`).toBeLessThanOrEqual(2 + 2 * Math.ceil(waited / 1_000));
    } finally {
      await chain.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
