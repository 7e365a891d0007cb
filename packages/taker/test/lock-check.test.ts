// The checks before signing, as properties: any lock the service's own builder makes for agreed terms passes
// every check (with or without a compute budget a wallet adds); any one slot of it changed fails exactly the
// check named for that slot; any instruction a lock does not need, added, fails exactly the check for what it
// does; a lookup table is refused. The client's own redeem and refund pass theirs; a wrong preimage or payout
// account fails by name.
import { fc, test } from '@fast-check/vitest';
import {
  AuthorityType,
  createApproveInstruction,
  createCloseAccountInstruction,
  createSetAuthorityInstruction,
  createTransferCheckedInstruction,
} from '@solana/spl-token';
import {
  AddressLookupTableAccount,
  MessageV0,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
  VersionedTransaction,
} from '@solana/web3.js';
import { describe, expect } from 'vitest';
import { DEFAULT_HTLC_PROGRAM_ID } from '../../../src/chain/htlc/index.ts';
import { ata } from '../../../src/chain/token.ts';
import { takerLockTransaction, unsignedBase64 } from '../../../src/chain/transactions.ts';
import {
  checkLockTransaction,
  checkRedeemTransaction,
  checkRefundTransaction,
  checkTransaction,
  type LockAgreement,
  lockAgreement,
  makerEscrowAddress,
  redeemExpectation,
  redeemTransaction,
  refundExpectation,
  refundTransaction,
  type TransactionCheck,
  type TransactionCheckName,
  toBase64,
} from '../src/index.ts';
import {
  buildLock,
  honestFields,
  type LockFields,
  type LockTerms,
  lockInstruction,
  NATIVE,
} from './support/locks.ts';

const PROGRAM = DEFAULT_HTLC_PROGRAM_ID;
const MAX_FEE = 1_000_000n;
const MAX_LIMIT = 400_000;

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const key = bytes32.map((b) => new PublicKey(b));

/** Terms and the bounds they sit in: the expiry inside [minExpiry, maxExpiry], the budget within its bounds. */
const honestTerms = fc
  .record({
    taker: key,
    maker: key,
    inputMint: fc.oneof(key, fc.constant(NATIVE)),
    outputMint: fc.oneof(key, fc.constant(NATIVE)),
    amount: fc.bigInt({ min: 1n, max: 2n ** 62n }),
    hashlock: bytes32,
    minExpiry: fc.bigInt({ min: 1_700_000_000n, max: 1_900_000_000n }),
    span: fc.bigInt({ min: 0n, max: 100_000n }),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    blockhash: key.map((k) => k.toBase58()),
    budget: fc.option(
      fc.integer({ min: 1, max: MAX_LIMIT }).chain((limit) =>
        fc.record({
          limit: fc.constant(limit),
          price: fc.option(fc.bigInt({ min: 0n, max: (MAX_FEE * 1_000_000n) / BigInt(limit) })),
        }),
      ),
    ),
  })
  .filter((t) => !t.taker.equals(t.maker) && !t.inputMint.equals(t.outputMint))
  .map((t) => {
    const expiry = t.minExpiry + BigInt(Math.floor(Number(t.span) * t.at));
    const terms: LockTerms = {
      taker: t.taker,
      maker: t.maker,
      inputMint: t.inputMint,
      outputMint: t.outputMint,
      amount: t.amount,
      hashlock: t.hashlock,
      expiry,
      lockDeadline: t.minExpiry - 60n,
      blockhash: t.blockhash,
      computeUnitLimit: t.budget?.limit ?? null,
      computeUnitPrice: t.budget?.price ?? null,
    };
    return { terms, minExpiry: t.minExpiry, maxExpiry: t.minExpiry + t.span };
  });

async function agreementFor(h: {
  terms: LockTerms;
  minExpiry: bigint;
  maxExpiry: bigint;
}): Promise<LockAgreement> {
  return lockAgreement({
    programId: PROGRAM.toBase58(),
    taker: h.terms.taker.toBase58(),
    maker: h.terms.maker.toBase58(),
    inputMint: h.terms.inputMint.toBase58(),
    outputMint: h.terms.outputMint.toBase58(),
    amountRaw: h.terms.amount,
    hashlock: h.terms.hashlock,
    minExpiry: h.minExpiry,
    maxExpiry: h.maxExpiry,
    maxPriorityFeeLamports: MAX_FEE,
    maxComputeUnitLimit: MAX_LIMIT,
  });
}

const failed = (check: TransactionCheck) => check.checks.filter((c) => !c.ok).map((c) => c.name);

describe('a lock with the agreed terms passes', () => {
  test.prop([honestTerms], { numRuns: 60 })(
    'the service’s own lock (and the same with a wallet’s compute budget) passes every check, decoded field for field',
    async (h) => {
      const agreement = await agreementFor(h);
      const fields = honestFields(h.terms);
      const base64 = buildLock(fields);
      if (h.terms.computeUnitLimit === null) {
        // The test's builder makes the service's bytes exactly, so the slots it changes below are the service's.
        const service = takerLockTransaction(
          PROGRAM,
          h.terms.maker,
          { blockhash: h.terms.blockhash, lastValidBlockHeight: 1_000 },
          { ...h.terms, inputMint: h.terms.inputMint, outputMint: h.terms.outputMint },
        );
        expect(unsignedBase64(service)).toBe(base64);
      }
      const check = checkLockTransaction(base64, agreement);
      expect(failed(check)).toEqual([]);
      expect(check.ok).toBe(true);
      expect(check.checks.map((c) => c.name)).toEqual(
        expect.arrayContaining<TransactionCheckName>([
          'decodes',
          'fee_payer',
          'lookup_tables',
          'known_programs',
          'compute_budget',
          'priority_fee',
          'token_accounts',
          'no_transfer',
          'no_delegate',
          'no_set_authority',
          'no_close',
          'htlc_program',
          'instruction_layout',
          'escrow_accounts',
          'amount',
          'mint',
          'hashlock',
          'counterparty',
          'taker',
          'refund_destination',
          'expiry',
        ]),
      );
      expect(check.lock).toMatchObject({
        feePayer: agreement.taker,
        programId: agreement.programId,
        taker: agreement.taker,
        refundTo: agreement.taker,
        counterparty: agreement.maker,
        mint: agreement.inputMint,
        amountRaw: h.terms.amount,
        expiry: h.terms.expiry,
        escrow: agreement.takerEscrow,
        vault: agreement.vault,
        sourceTokenAccount: agreement.inputTokenAccount,
        computeUnitLimit: h.terms.computeUnitLimit,
      });
      expect(check.lock?.hashlock).toEqual(h.terms.hashlock);
      expect(checkTransaction(base64, { kind: 'lock', agreement }).ok).toBe(true);
    },
  );
});

type Mutation = {
  name: string;
  /** What it changes; null when it does not apply to these terms. */
  apply(
    f: LockFields,
    other: PublicKey,
    h: { minExpiry: bigint; maxExpiry: bigint },
    n: bigint,
  ): LockFields | null;
  fails: TransactionCheckName[];
};

/** One slot each; `n` ≥ 1 and `other` a key none of the terms uses. */
const MUTATIONS: Mutation[] = [
  { name: 'amount', apply: (f, _o, _h, n) => ({ ...f, amount: f.amount + n }), fails: ['amount'] },
  { name: 'mint', apply: (f, o) => ({ ...f, mint: o }), fails: ['mint'] },
  {
    name: 'hashlock',
    apply: (f, o) => ({ ...f, hashlock: o.toBytes() }),
    fails: ['hashlock'],
  },
  { name: 'counterparty', apply: (f, o) => ({ ...f, recipient: o }), fails: ['counterparty'] },
  { name: 'source account', apply: (f, o) => ({ ...f, source: o }), fails: ['taker'] },
  { name: 'initializer', apply: (f, o) => ({ ...f, initializer: o }), fails: ['refund_destination'] },
  {
    name: 'expiry too early',
    apply: (f, _o, h, n) => ({ ...f, expiry: h.minExpiry - n }),
    fails: ['expiry'],
  },
  { name: 'expiry too late', apply: (f, _o, h, n) => ({ ...f, expiry: h.maxExpiry + n }), fails: ['expiry'] },
  { name: 'escrow', apply: (f, o) => ({ ...f, escrow: o }), fails: ['escrow_accounts'] },
  { name: 'vault', apply: (f, o) => ({ ...f, vault: o }), fails: ['escrow_accounts'] },
  { name: 'token program', apply: (f, o) => ({ ...f, tokenProgram: o }), fails: ['escrow_accounts'] },
  { name: 'program', apply: (f, o) => ({ ...f, program: o }), fails: ['htlc_program'] },
  { name: 'kind', apply: (f) => ({ ...f, kind: 2 }), fails: ['instruction_layout'] },
  { name: 'fee payer', apply: (f, o) => ({ ...f, feePayer: o }), fails: ['fee_payer'] },
  {
    name: 'priority fee',
    apply: (f, _o, _h, n) => ({
      ...f,
      computeUnitLimit: 200_000,
      computeUnitPrice: ((MAX_FEE + n) * 1_000_000n) / 200_000n + 1n,
    }),
    fails: ['priority_fee'],
  },
  {
    name: 'compute-unit limit',
    apply: (f, _o, _h, n) => ({
      ...f,
      computeUnitLimit: MAX_LIMIT + 1 + Number(n % 1_000_000n),
      computeUnitPrice: null,
    }),
    fails: ['compute_budget'],
  },
  {
    name: 'wrapped amount',
    apply: (f, _o, _h, n) => (f.wrapLamports === null ? null : { ...f, wrapLamports: f.wrapLamports + n }),
    fails: ['wrap'],
  },
];

describe('one slot changed fails exactly its check', () => {
  test.prop([honestTerms, fc.constantFrom(...MUTATIONS), key, fc.bigInt({ min: 1n, max: 1_000_000n })], {
    numRuns: 150,
  })('the changed slot’s check, and no other, fails', async (h, mutation, other, n) => {
    const agreement = await agreementFor(h);
    const fields = honestFields(h.terms);
    fc.pre(
      ![h.terms.taker, h.terms.maker, h.terms.inputMint, h.terms.outputMint].some((k) => k.equals(other)),
    );
    const changed = mutation.apply(fields, other, h, n);
    fc.pre(changed !== null);
    const check = checkLockTransaction(buildLock(changed as LockFields), agreement);
    expect(check.ok).toBe(false);
    expect(failed(check)).toEqual(mutation.fails);
  });
});

/** Instructions a lock does not need, each with the check that names what it does. */
const ADDED: {
  name: string;
  ix(f: LockFields, other: PublicKey): TransactionInstruction;
  fails: TransactionCheckName[];
}[] = [
  {
    name: 'approve',
    ix: (f, o) => createApproveInstruction(f.source, o, f.taker, 1n),
    fails: ['no_delegate'],
  },
  {
    name: 'close of the wrapped-SOL account',
    ix: (f, o) => createCloseAccountInstruction(ata(f.taker, NATIVE), o, f.taker),
    fails: ['no_close'],
  },
  {
    name: 'transferChecked',
    ix: (f, o) => createTransferCheckedInstruction(f.source, f.inputMint, o, f.taker, 5n, 6),
    fails: ['no_transfer'],
  },
  {
    name: 'setAuthority',
    ix: (f, o) => createSetAuthorityInstruction(f.source, f.taker, AuthorityType.AccountOwner, o),
    fails: ['no_set_authority'],
  },
  {
    name: 'system transfer',
    ix: (f, o) => SystemProgram.transfer({ fromPubkey: f.taker, toPubkey: o, lamports: 1n }),
    fails: ['no_transfer'],
  },
  {
    name: 'system assign',
    ix: (f, o) => SystemProgram.assign({ accountPubkey: f.taker, programId: o }),
    fails: ['no_set_authority'],
  },
  {
    name: 'an unknown program',
    ix: (f, o) =>
      new TransactionInstruction({
        programId: o,
        keys: [{ pubkey: f.taker, isSigner: true, isWritable: true }],
        data: Buffer.from([7]),
      }),
    fails: ['known_programs'],
  },
  { name: 'a second lock', ix: (f) => lockInstruction(f), fails: ['htlc_program'] },
];

describe('an instruction a lock does not need fails exactly its check', () => {
  test.prop([honestTerms, fc.constantFrom(...ADDED), key], { numRuns: 80 })(
    'the added instruction is named by what it does',
    async (h, added, other) => {
      const agreement = await agreementFor(h);
      const fields = honestFields(h.terms);
      fc.pre(
        ![h.terms.taker, h.terms.maker, h.terms.inputMint, h.terms.outputMint].some((k) => k.equals(other)),
      );
      const check = checkLockTransaction(
        buildLock({ ...fields, extra: [added.ix(fields, other)] }),
        agreement,
      );
      expect(failed(check)).toEqual(added.fails);
    },
  );
});

describe('what cannot be read is refused', () => {
  test.prop([honestTerms, key], { numRuns: 20 })(
    'a v0 lock whose source account comes from a lookup table is refused: the bytes do not name what it writes',
    async (h, table) => {
      const agreement = await agreementFor(h);
      const fields = honestFields(h.terms);
      const lookup = new AddressLookupTableAccount({
        key: table,
        state: {
          deactivationSlot: 2n ** 64n - 1n,
          lastExtendedSlot: 0,
          lastExtendedSlotStartIndex: 0,
          addresses: [fields.source],
        },
      });
      const message = MessageV0.compile({
        payerKey: fields.feePayer,
        recentBlockhash: fields.blockhash,
        instructions: [lockInstruction(fields)],
        addressLookupTableAccounts: [lookup],
      });
      const bytes = new VersionedTransaction(message).serialize();
      const check = checkLockTransaction(toBase64(bytes), agreement);
      expect(check.ok).toBe(false);
      expect(failed(check)).toContain('lookup_tables');
      expect(check.checks.find((c) => c.name === 'lookup_tables')?.detail).toContain(table.toBase58());
    },
  );

  test.prop([fc.uint8Array({ maxLength: 300 })], { numRuns: 200 })(
    'random bytes fail to decode, never throw',
    async (junk) => {
      const agreement = await agreementFor({
        terms: {
          taker: PROGRAM,
          maker: NATIVE,
          inputMint: NATIVE,
          outputMint: PROGRAM,
          amount: 1n,
          hashlock: new Uint8Array(32),
          expiry: 2n,
          lockDeadline: 1n,
          blockhash: PROGRAM.toBase58(),
          computeUnitLimit: null,
          computeUnitPrice: null,
        },
        minExpiry: 0n,
        maxExpiry: 10n,
      });
      const check = checkLockTransaction(toBase64(junk), agreement);
      expect(check.ok).toBe(false);
      expect(check.checks.length).toBeGreaterThan(0);
    },
  );
});

describe('the client’s own redeem and refund', () => {
  test.prop([key, key, bytes32, fc.boolean(), key], { numRuns: 30 })(
    'pass their checks; another preimage, payout account or escrow fails by name',
    async (taker, mint, preimage, native, other) => {
      const outputMint = (native ? NATIVE : mint).toBase58();
      const makerEscrow = await makerEscrowAddress(PROGRAM.toBase58(), other.toBase58());
      const lifetime = { blockhash: other.toBase58(), lastValidBlockHeight: 10n };
      const redeem = await redeemTransaction({
        programId: PROGRAM.toBase58(),
        taker: taker.toBase58(),
        makerEscrow,
        outputMint,
        preimage,
        lifetime,
      });
      const expectation = await redeemExpectation({
        programId: PROGRAM.toBase58(),
        taker: taker.toBase58(),
        makerEscrow,
        outputMint,
        preimage,
        maxPriorityFeeLamports: MAX_FEE,
        maxComputeUnitLimit: MAX_LIMIT,
      });
      expect(failed(checkRedeemTransaction(redeem, expectation))).toEqual([]);
      const wrongPreimage = preimage.map((b, i) => (i === 0 ? b ^ 1 : b));
      expect(failed(checkRedeemTransaction(redeem, { ...expectation, preimage: wrongPreimage }))).toEqual([
        'preimage',
      ]);
      expect(
        failed(checkRedeemTransaction(redeem, { ...expectation, makerEscrow: taker.toBase58() })),
      ).toEqual(['escrow_accounts']);
      expect(
        failed(checkRedeemTransaction(redeem, { ...expectation, outputTokenAccount: other.toBase58() })),
      ).toEqual(
        native ? ['token_accounts', 'no_close', 'payout_account'] : ['token_accounts', 'payout_account'],
      );

      const refund = await refundTransaction({
        programId: PROGRAM.toBase58(),
        taker: taker.toBase58(),
        takerEscrow: other.toBase58(),
        inputMint: outputMint,
        lifetime,
      });
      const refundExpected = await refundExpectation({
        programId: PROGRAM.toBase58(),
        taker: taker.toBase58(),
        takerEscrow: other.toBase58(),
        inputMint: outputMint,
        maxPriorityFeeLamports: MAX_FEE,
        maxComputeUnitLimit: MAX_LIMIT,
      });
      expect(failed(checkRefundTransaction(refund, refundExpected))).toEqual([]);
      expect(failed(checkRefundTransaction(refund, { ...refundExpected, takerEscrow: makerEscrow }))).toEqual(
        ['escrow_accounts'],
      );
      // A redeem is not a refund.
      expect(failed(checkTransaction(redeem, { kind: 'refund', expectation: refundExpected }))).toContain(
        'htlc_program',
      );
    },
  );
});
