// A hedge's record as the hedger writes it: a new one with its signed swap (stored before the first send), the
// same hedge signed again once its swap proved unlandable, and what a landed one came to. USD prices are
// stored beside it as exact ratios.
import { rawMid, type Slippage, slippageOf } from '../aggregator/index.ts';
import { dividePrices, type Price } from '../money/index.ts';
import type { HedgeRecord } from '../store/index.ts';
import type { SignedClip, Step } from './clip.ts';

/** An exact USD price as stored beside a hedge ("num/den"). */
export const ratioText = (price: Price): string => `${price.num}/${price.den}`;

export function parseRatio(text: string): Price {
  const [num, den] = text.split('/');
  if (!num || !den) throw new Error(`not a ratio: ${text}`);
  return { num: BigInt(num), den: BigInt(den) };
}

/** What a clip's signed swap sets on its hedge: the amounts, prices, bound and the bytes to send. */
function swapFields(step: Step, signed: SignedClip, maxSlippageBps: number) {
  const { swap, quoted } = signed;
  return {
    amountInRaw: step.plan.amountInRaw,
    quotedOutRaw: quoted.outAmount,
    minOutRaw: quoted.minOut,
    midOutRaw: slippageOf(step.plan.amountInRaw, 0n, swap.mid).midOutRaw,
    inputUsd: ratioText(swap.inputUsd),
    outputUsd: ratioText(swap.outputUsd),
    maxSlippageBps,
    signature: signed.signed.signature,
    transactionBase64: signed.signed.transactionBase64,
    lastValidBlockHeight: signed.signed.lastValidBlockHeight,
  };
}

/** A new hedge of the asset (`mint`), sending its first signed swap. */
export function newHedge(h: {
  hedgeId: string;
  tradeId: string;
  runId: string;
  mint: string;
  step: Step;
  signed: SignedClip;
  maxSlippageBps: number;
  at: string;
}): HedgeRecord {
  return {
    hedgeId: h.hedgeId,
    tradeId: h.tradeId,
    runId: h.runId,
    ownerRunId: h.runId,
    asset: h.mint,
    side: h.step.plan.side,
    inputMint: h.signed.swap.inputMint,
    outputMint: h.signed.swap.outputMint,
    ...swapFields(h.step, h.signed, h.maxSlippageBps),
    status: 'sending',
    attempt: 1,
    expiredSignatures: [],
    landedInRaw: null,
    landedOutRaw: null,
    feeLamports: null,
    slot: null,
    error: null,
    createdAt: h.at,
    updatedAt: h.at,
    landedAt: null,
  };
}

/** The hedge after its swap proved unlandable: the clip planned and signed again, its next attempt. */
export function resignedHedge(
  hedge: HedgeRecord,
  step: Step,
  signed: SignedClip,
  maxSlippageBps: number,
  at: string,
): HedgeRecord {
  return {
    ...hedge,
    status: 'sending',
    attempt: hedge.attempt + 1,
    ...swapFields(step, signed, maxSlippageBps),
    error: null,
    updatedAt: at,
  };
}

/**
 * What a landed hedge came to: its slippage against the mid it was quoted at, its input's USD value at that
 * mid (a float, for metrics only), and the seconds from its record to its landing.
 */
export function landedSummary(
  hedge: HedgeRecord,
  inputDecimals: number,
  outputDecimals: number,
): { slippage: Slippage; notionalUsd: number; seconds: number } {
  const mid = rawMid(
    dividePrices(parseRatio(hedge.inputUsd), parseRatio(hedge.outputUsd)),
    inputDecimals,
    outputDecimals,
  );
  const slippage = slippageOf(hedge.landedInRaw ?? 0n, hedge.landedOutRaw ?? 0n, mid);
  const inputUsd = parseRatio(hedge.inputUsd);
  const notionalUsd =
    Number(
      ((hedge.landedInRaw ?? 0n) * inputUsd.num * 100n) / (inputUsd.den * 10n ** BigInt(inputDecimals)),
    ) / 100;
  const seconds = Math.max(
    0,
    (Date.parse(hedge.landedAt ?? hedge.updatedAt) - Date.parse(hedge.createdAt)) / 1000,
  );
  return { slippage, notionalUsd, seconds };
}
