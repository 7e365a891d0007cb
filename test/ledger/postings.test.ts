// docs/quotes-and-ledger.md#ledger: every on-chain movement posts a debit and a credit of the same amount of the same asset,
// so a trade's ledger balances per asset whatever happened to it.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  ESCROW_MOVEMENTS,
  FEE_MINT,
  isBalanced,
  LEDGER_ACCOUNTS,
  LEDGER_MOVEMENTS,
  type LedgerEntry,
  type LedgerMovement,
  makerNet,
  postGatewayMint,
  postMovement,
  postNetworkFee,
  postSwap,
  rollbackPostings,
  summarize,
  transitionPostings,
} from '../../src/ledger/index.ts';
import { INT64_MAX } from '../../src/money/index.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';
import {
  type Posting,
  postAll,
  redeemedSwap,
  refundedSwap,
  SOL_USDC_PRICING,
  USD_1,
  WIDE_MINT,
} from './fixtures.ts';

const mintArb = fc.constantFrom(SOL_MINT, USDC_MINT, WIDE_MINT);
const signatureArb = fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{8,16}$/);

const postingArb = (minAmount: bigint): fc.Arbitrary<Posting> =>
  fc.oneof(
    fc.record({
      kind: fc.constant('movement' as const),
      movement: fc.constantFrom(...ESCROW_MOVEMENTS),
      signature: signatureArb,
      mint: mintArb,
      amountRaw: fc.bigInt({ min: minAmount, max: INT64_MAX }),
    }),
    fc.record({
      kind: fc.constant('fee' as const),
      signature: signatureArb,
      lamports: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 10_000_000n })),
    }),
  );
const postingsArb = fc.array(postingArb(0n), { maxLength: 30 });
const feesArb = fc.array(fc.bigInt({ min: 0n, max: 1_000_000n }), { maxLength: 6 });
const amountArb = fc.bigInt({ min: 1n, max: INT64_MAX });

const withoutIndex = <T>(items: readonly T[], index: number): T[] => items.filter((_, i) => i !== index);

describe('postMovement', () => {
  test('a taker lock debits the taker escrow and credits the taker, for the same amount and mint', () => {
    expect(postMovement('taker_lock', 'sig-1', USDC_MINT, 187_000_000n)).toEqual([
      {
        movement: 'taker_lock',
        signature: 'sig-1',
        mint: USDC_MINT,
        account: 'taker_escrow',
        side: 'debit',
        amountRaw: 187_000_000n,
      },
      {
        movement: 'taker_lock',
        signature: 'sig-1',
        mint: USDC_MINT,
        account: 'taker',
        side: 'credit',
        amountRaw: 187_000_000n,
      },
    ]);
  });

  test.each([
    ['taker_lock', 'taker', 'taker_escrow'],
    ['maker_lock', 'maker', 'maker_escrow'],
    ['taker_redeem', 'maker_escrow', 'taker'],
    ['maker_redeem', 'taker_escrow', 'maker'],
    ['maker_refund', 'maker_escrow', 'maker'],
    ['taker_refund', 'taker_escrow', 'taker'],
  ] as const)('%s moves funds from %s to %s', (movement, from, to) => {
    const [debit, credit] = postMovement(movement, 'sig', SOL_MINT, 5n);
    expect(debit).toMatchObject({ account: to, side: 'debit' });
    expect(credit).toMatchObject({ account: from, side: 'credit' });
  });

  test.prop([fc.constantFrom(...ESCROW_MOVEMENTS), signatureArb, mintArb, amountArb])(
    'every movement is one debit and one credit of the same amount, mint and signature, between two known accounts',
    (movement, signature, mint, amountRaw) => {
      const entries = postMovement(movement, signature, mint, amountRaw);
      expect(entries.map((e) => e.side)).toEqual(['debit', 'credit']);
      for (const entry of entries) {
        expect(entry).toMatchObject({ movement, signature, mint, amountRaw });
        expect(LEDGER_ACCOUNTS).toContain(entry.account);
      }
      expect(entries[0]?.account).not.toBe(entries[1]?.account);
    },
  );
});

describe('postNetworkFee', () => {
  test('a fee is paid by the maker to the network, in lamports of native SOL', () => {
    expect(postNetworkFee('sig-fee', 5_000n)).toEqual([
      {
        movement: 'network_fee',
        signature: 'sig-fee',
        mint: FEE_MINT,
        account: 'network',
        side: 'debit',
        amountRaw: 5_000n,
      },
      {
        movement: 'network_fee',
        signature: 'sig-fee',
        mint: FEE_MINT,
        account: 'maker',
        side: 'credit',
        amountRaw: 5_000n,
      },
    ]);
  });

  test('a fee of zero posts nothing', () => {
    expect(postNetworkFee('sig-fee', 0n)).toEqual([]);
  });

  test('fees are in SOL whatever the trade assets: the fee mint is the native mint', () => {
    expect(FEE_MINT).toBe('So11111111111111111111111111111111111111112');
  });
});

describe('isBalanced', () => {
  test('an empty ledger is balanced', () => {
    expect(isBalanced([])).toBe(true);
  });

  test('balance is per mint: a debit of one asset never offsets a credit of another', () => {
    const [debit] = postMovement('taker_lock', 'sig-a', SOL_MINT, 1_000n);
    const [, credit] = postMovement('taker_lock', 'sig-b', USDC_MINT, 1_000n);
    expect(isBalanced([debit as LedgerEntry, credit as LedgerEntry])).toBe(false);
  });

  test('a debit and a credit of different amounts are unbalanced', () => {
    const [debit] = postMovement('maker_lock', 'sig', USDC_MINT, 100n);
    const [, credit] = postMovement('maker_lock', 'sig', USDC_MINT, 99n);
    expect(isBalanced([debit as LedgerEntry, credit as LedgerEntry])).toBe(false);
  });

  test.prop([postingsArb])('any sequence of postings is balanced per mint', (postings) => {
    const entries = postAll(postings);
    expect(isBalanced(entries)).toBe(true);
    for (const mint of new Set(entries.map((e) => e.mint))) {
      expect(isBalanced(entries.filter((e) => e.mint === mint))).toBe(true);
    }
  });

  test.prop([fc.array(postingArb(1n), { minLength: 1, maxLength: 30 }), fc.nat()])(
    'removing any one leg of a non-zero posting leaves the ledger unbalanced',
    (postings, pick) => {
      const entries = postAll(postings);
      fc.pre(entries.length > 0);
      expect(isBalanced(withoutIndex(entries, pick % entries.length))).toBe(false);
    },
  );

  test.prop([
    postingsArb.chain((postings) =>
      fc.shuffledSubarray(postAll(postings), { minLength: postAll(postings).length }),
    ),
  ])('balance does not depend on the order entries are stored in', (shuffled) => {
    expect(isBalanced(shuffled)).toBe(true);
  });
});

describe('summarize', () => {
  test.prop([postingsArb])(
    'entry_count is two per movement and per non-zero fee; a zero fee posts nothing',
    (postings) => {
      const posted = postings.filter((p) => p.kind === 'movement' || p.lamports !== 0n).length;
      const summary = summarize(postAll(postings), SOL_USDC_PRICING, USD_1);
      expect(summary.entry_count).toBe(2 * posted);
      expect(summary.balanced).toBe(true);
    },
  );

  test('reports what is stored, not what should be: a lost leg shows as unbalanced', () => {
    const entries = redeemedSwap({
      inputMint: SOL_MINT,
      inputRaw: 1_000_000_000n,
      outputMint: USDC_MINT,
      outputRaw: 187_000_000n,
      fees: [5_000n],
    });
    const summary = summarize(entries.slice(1), SOL_USDC_PRICING, USD_1);
    expect(summary).toMatchObject({ balanced: false, entry_count: entries.length - 1 });
  });

  test('a redeemed SOL→USDC swap: eight entries, balanced, the spread as the estimate', () => {
    const entries = redeemedSwap({
      inputMint: SOL_MINT,
      inputRaw: 1_000_000_000n,
      outputMint: USDC_MINT,
      outputRaw: 187_000_000n,
      fees: [],
    });
    expect(summarize(entries, SOL_USDC_PRICING, USD_1)).toEqual({
      balanced: true,
      entry_count: 8,
      net_usdc_estimate: '0.420000',
    });
  });
});

describe('makerNet', () => {
  test.prop([mintArb, amountArb, mintArb, amountArb, feesArb])(
    'a redeemed swap nets the maker +input −output, minus its fees in SOL',
    (inputMint, inputRaw, outputMint, outputRaw, fees) => {
      const net = makerNet(redeemedSwap({ inputMint, inputRaw, outputMint, outputRaw, fees }));
      const expected = new Map<string, bigint>();
      const add = (mint: string, delta: bigint) => expected.set(mint, (expected.get(mint) ?? 0n) + delta);
      add(inputMint, inputRaw);
      add(outputMint, -outputRaw);
      for (const fee of fees) add(SOL_MINT, -fee);
      for (const [mint, amount] of expected) expect(net.get(mint) ?? 0n).toBe(amount);
      for (const [mint, amount] of net) expect(amount).toBe(expected.get(mint) ?? 0n);
    },
  );

  test('a redeemed USDC→SOL swap paying two fees: +187 USDC, −(1 SOL + 10,000 lamports)', () => {
    const net = makerNet(
      redeemedSwap({
        inputMint: USDC_MINT,
        inputRaw: 187_000_000n,
        outputMint: SOL_MINT,
        outputRaw: 1_000_000_000n,
        fees: [5_000n, 5_000n],
      }),
    );
    expect(Object.fromEntries(net)).toEqual({ [USDC_MINT]: 187_000_000n, [SOL_MINT]: -1_000_010_000n });
  });

  test.prop([mintArb, amountArb, mintArb, amountArb, feesArb])(
    'a refunded swap nets the maker only −fees: every asset it locked comes back',
    (inputMint, inputRaw, outputMint, outputRaw, fees) => {
      const net = makerNet(refundedSwap({ inputMint, inputRaw, outputMint, outputRaw, fees }));
      const totalFees = fees.reduce((sum, fee) => sum + fee, 0n);
      for (const [mint, amount] of net) expect(amount).toBe(mint === SOL_MINT ? -totalFees : 0n);
      expect(net.get(SOL_MINT) ?? 0n).toBe(-totalFees);
    },
  );

  test('taker and escrow accounts never count toward the maker', () => {
    const entries = [
      ...postMovement('taker_lock', 'sig-1', USDC_MINT, 10n),
      ...postMovement('taker_refund', 'sig-2', USDC_MINT, 10n),
    ];
    expect([...makerNet(entries).values()]).toEqual([]);
  });

  test.prop([postingsArb])(
    'the maker gains by maker_redeem and maker_refund, gives by maker_lock and fees, and nothing else moves it',
    (postings) => {
      const expected = new Map<string, bigint>();
      const add = (mint: string, delta: bigint) => expected.set(mint, (expected.get(mint) ?? 0n) + delta);
      for (const p of postings) {
        if (p.kind === 'fee') {
          if (p.lamports !== 0n) add(SOL_MINT, -p.lamports);
        } else if (p.movement === 'maker_redeem' || p.movement === 'maker_refund') {
          add(p.mint, p.amountRaw);
        } else if (p.movement === 'maker_lock') {
          add(p.mint, -p.amountRaw);
        }
      }
      expect(makerNet(postAll(postings))).toEqual(expected);
    },
  );
});

describe('the postings of a transition', () => {
  const trade = {
    inputMint: SOL_MINT,
    inputAmountRaw: '5000',
    outputMint: USDC_MINT,
    outputAmountRaw: '700',
    takerLockTerms: null,
  };

  test('each signature the transition added posts its side; fees are posted apart, once the chain shows them', () => {
    const entries = transitionPostings(
      [
        { kind: 'taker_lock', signature: 'lock-sig' },
        { kind: 'maker_lock', signature: 'maker-lock-sig' },
      ],
      { ...trade, takerLockTerms: { mint: SOL_MINT, amountRaw: '5000' } },
    );
    expect(entries.filter((e) => e.movement === 'taker_lock').map((e) => [e.mint, e.amountRaw])).toEqual([
      [SOL_MINT, 5000n],
      [SOL_MINT, 5000n],
    ]);
    expect(entries.filter((e) => e.movement === 'maker_lock').map((e) => e.amountRaw)).toEqual([700n, 700n]);
    expect(entries.filter((e) => e.movement === 'network_fee')).toEqual([]);
    expect(isBalanced(entries)).toBe(true);
    const fee = postNetworkFee('maker-lock-sig', 5_000n);
    expect(fee.map((e) => [e.account, e.side, e.amountRaw])).toEqual([
      ['network', 'debit', 5000n],
      ['maker', 'credit', 5000n],
    ]);
    expect(isBalanced([...entries, ...fee])).toBe(true);
    expect(postNetworkFee('free', 0n)).toEqual([]);
  });

  test('a lock with other terms than agreed posts what it locked on chain, in and out alike', () => {
    const locked = { ...trade, takerLockTerms: { mint: USDC_MINT, amountRaw: '4321' } };
    const entries = transitionPostings(
      [
        { kind: 'taker_lock', signature: 'a' },
        { kind: 'taker_refund', signature: 'b' },
      ],
      locked,
    );
    expect(new Set(entries.map((e) => `${e.mint}:${e.amountRaw}`))).toEqual(new Set([`${USDC_MINT}:4321`]));
    expect(makerNet(entries).size).toBe(0);
  });

  test('a movement a fork took back is reversed under its signature: the accounts net to nothing', () => {
    const moved = [
      { kind: 'taker_lock' as const, signature: 'lock-sig' },
      { kind: 'maker_lock' as const, signature: 'maker-lock-sig' },
    ];
    const reversed = rollbackPostings(moved, trade);
    expect(reversed.map((e) => e.movement)).toEqual(reversed.map(() => 'rolled_back'));
    const entries = [...transitionPostings(moved, trade), ...reversed];
    expect(isBalanced(entries)).toBe(true);
    expect(makerNet(entries)).toEqual(new Map([[USDC_MINT, 0n]]));
    for (const account of ['taker', 'taker_escrow', 'maker_escrow']) {
      const net = entries
        .filter((e) => e.account === account)
        .reduce((sum, e) => sum + (e.side === 'debit' ? e.amountRaw : -e.amountRaw), 0n);
      expect(net, account).toBe(0n);
    }
  });

  test('kinds that move nothing of the trade post nothing', () => {
    expect(transitionPostings([{ kind: 'gateway_mint', signature: 'x' }], trade)).toEqual([]);
  });
});

describe('postGatewayMint', () => {
  test('moves the value from the unified balance to Solana and books the fee as a cost: balanced, the maker nets minus the fee', () => {
    const entries = postGatewayMint('sig-mint', {
      usdcMint: USDC_MINT,
      valueRaw: 70_000_000n,
      feeRaw: 13_500n,
    });
    expect(isBalanced(entries)).toBe(true);
    expect(makerNet(entries)).toEqual(new Map([[USDC_MINT, -13_500n]]));
    const solana = entries.filter((e) => e.account === 'maker');
    expect(solana).toEqual([expect.objectContaining({ side: 'debit', amountRaw: 70_000_000n })]);
  });
});

// The vocabulary lists are the contract with storage and reports: each names exactly what postings can
// produce, no more and no less.
describe('ledger vocabulary', () => {
  const everyPosting = () => [
    ...LEDGER_MOVEMENTS.filter(
      (m): m is Exclude<LedgerMovement, 'network_fee' | 'aggregator_swap' | 'rolled_back' | 'gateway_mint'> =>
        m !== 'network_fee' && m !== 'aggregator_swap' && m !== 'rolled_back' && m !== 'gateway_mint',
    ).flatMap((movement) => postMovement(movement, `sig-${movement}`, USDC_MINT, 1n)),
    ...rollbackPostings([{ kind: 'taker_lock', signature: 'sig-rolled-back' }], {
      inputMint: SOL_MINT,
      inputAmountRaw: '5000',
      outputMint: USDC_MINT,
      outputAmountRaw: '700',
      takerLockTerms: null,
    }),
    ...postSwap('sig-swap', {
      inputMint: SOL_MINT,
      amountInRaw: 2n,
      outputMint: USDC_MINT,
      amountOutRaw: 3n,
    }),
    ...postNetworkFee('sig-fee', 5_000n),
    ...postGatewayMint('sig-mint', { usdcMint: USDC_MINT, valueRaw: 7n, feeRaw: 1n }),
  ];

  test('LEDGER_MOVEMENTS is exactly the movements postings record', () => {
    expect(new Set(everyPosting().map((e) => e.movement))).toEqual(new Set(LEDGER_MOVEMENTS));
    expect(new Set(LEDGER_MOVEMENTS).size).toBe(10);
  });

  test('LEDGER_ACCOUNTS is exactly the accounts postings touch', () => {
    expect(new Set(everyPosting().map((e) => e.account))).toEqual(new Set(LEDGER_ACCOUNTS));
    expect(new Set(LEDGER_ACCOUNTS).size).toBe(7);
  });
});
