// Priority fees of maker transactions: the base far from a deadline, rising to the configured cap as the
// deadline nears, and what the signed transaction carries.
import { fc, test } from '@fast-check/vitest';
import { ComputeBudgetInstruction, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { type PriorityFeePolicy, priorityFeeFor } from '../../src/chain/priority.ts';
import { settlementBuilders } from '../../src/chain/settlement.ts';
import { fastSigner } from '../../src/chain/signer.ts';

const policy = (base: number, max: number, rampSeconds = 120): PriorityFeePolicy => ({
  baseMicroLamports: base,
  maxMicroLamports: max,
  rampSeconds,
  unitLimit: 200_000,
});

const fees = fc
  .tuple(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 0, max: 1_000 }))
  .map(([base, times]) => policy(base, base * times + base, 120));
const seconds = fc.double({ min: -1_000, max: 10_000, noNaN: true });

describe('priorityFeeFor', () => {
  it('is the base without a deadline, and before the ramp; the cap at the deadline and past it', () => {
    const p = policy(10_000, 1_000_000);
    expect(priorityFeeFor(p)).toBe(10_000);
    expect(priorityFeeFor(p, 120)).toBe(10_000);
    expect(priorityFeeFor(p, 10_000)).toBe(10_000);
    expect(priorityFeeFor(p, 0)).toBe(1_000_000);
    expect(priorityFeeFor(p, -5)).toBe(1_000_000);
    // Geometric: half way through the ramp, the geometric mean of base and cap.
    expect(priorityFeeFor(p, 60)).toBe(100_000);
  });

  it('pays nothing when no base fee is configured, whatever the deadline', () => {
    expect(priorityFeeFor(policy(0, 1_000_000), 0)).toBe(0);
  });

  test.prop([fees, seconds])('stays within base and cap, and is a whole number', (p, left) => {
    const fee = priorityFeeFor(p, left);
    expect(Number.isInteger(fee)).toBe(true);
    expect(fee).toBeGreaterThanOrEqual(p.baseMicroLamports);
    expect(fee).toBeLessThanOrEqual(p.maxMicroLamports);
  });

  test.prop([fees, seconds, seconds])('never falls as the deadline nears', (p, a, b) => {
    const [sooner, later] = a <= b ? [a, b] : [b, a];
    expect(priorityFeeFor(p, sooner)).toBeGreaterThanOrEqual(priorityFeeFor(p, later));
  });
});

describe('a signed maker transaction', () => {
  const maker = fastSigner(Keypair.generate());
  const builders = settlementBuilders({
    programId: new PublicKey('FkwXEvVTwK8CjPKJHF5j91PWFsq2nNp4ecXHvu9qWRfh'),
    maker,
    priorityFee: policy(10_000, 1_000_000),
    lifetime: async () => ({ blockhash: '11111111111111111111111111111111', lastValidBlockHeight: 150 }),
  });
  const priceOf = async (secondsLeft?: number) => {
    const signed = await builders.signMakerRefund(
      { makerEscrow: Keypair.generate().publicKey, outputMint: Keypair.generate().publicKey },
      secondsLeft === undefined ? {} : { secondsLeft },
    );
    const tx = Transaction.from(Buffer.from(signed.transactionBase64, 'base64'));
    const price = tx.instructions.find(
      (ix) =>
        ix.programId.toBase58() === 'ComputeBudget111111111111111111111111111111' &&
        ComputeBudgetInstruction.decodeInstructionType(ix) === 'SetComputeUnitPrice',
    );
    return price ? Number(ComputeBudgetInstruction.decodeSetComputeUnitPrice(price).microLamports) : null;
  };

  it('carries the base price far from a deadline and the cap at it', async () => {
    expect(await priceOf()).toBe(10_000);
    expect(await priceOf(3_600)).toBe(10_000);
    expect(await priceOf(0)).toBe(1_000_000);
  });
});
