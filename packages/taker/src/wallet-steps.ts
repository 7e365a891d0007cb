// The taker's own transactions on chain: a redeem or a refund built here, held to its checks, signed by the
// wallet and sent through the taker's RPC; and the watch over a redeem left to the service, which redeems from
// the wallet itself when the service is late. Every step that lets the preimage out is stored first.
import { getBase58Decoder } from '@solana/kit';
import { fromHex } from './bytes.ts';
import {
  NotRefundableError,
  TakerStateError,
  TransactionFailedError,
  TransactionRefusedError,
} from './errors.ts';
import { decodeEscrow } from './htlc.ts';
import {
  checkRedeemTransaction,
  checkRefundTransaction,
  redeemExpectation,
  refundExpectation,
  type TransactionCheck,
} from './lock-check.ts';
import type { TakerRpc } from './rpc.ts';
import type { SwapRecord, SwapStore } from './store.ts';
import { redeemTransaction, refundTransaction, transactionSignature } from './transactions.ts';
import type { LockTerms } from './verify.ts';
import type { TakerWallet } from './wallet.ts';

/** What the steps need of the client: its RPC, its store, the program and the bounds it signs within. */
export interface WalletSteps {
  rpc: TakerRpc;
  store: SwapStore;
  programId: string;
  maxPriorityFeeLamports: bigint;
  maxComputeUnitLimit: number;
}

/** A transaction that failed its checks never reaches the wallet. */
function refuseUnless(what: 'redeem' | 'refund', check: TransactionCheck): void {
  if (!check.ok)
    throw new TransactionRefusedError(
      what,
      check.checks.filter((c) => !c.ok),
      check,
    );
}

/** Has the wallet sign (or sign and send) and waits for the transaction at the client's commitment. */
export async function sendFromWallet(
  steps: WalletSteps,
  wallet: TakerWallet,
  record: SwapRecord,
  unsigned: string,
  lastValidBlockHeight: bigint,
  hooks: { onSigned?(signature: string): Promise<void> } = {},
): Promise<string> {
  if (wallet.address !== record.wallet.address)
    throw new TakerStateError(`this swap is ${record.wallet.address}'s, not ${wallet.address}'s`);
  let signature: string;
  if (wallet.signAndSend) signature = await wallet.signAndSend(unsigned);
  else {
    const signed = await wallet.signTransaction(unsigned);
    signature = getBase58Decoder().decode(transactionSignature(signed));
    await hooks.onSigned?.(signature);
    await steps.rpc.send(signed);
  }
  await steps.rpc.confirm(signature, lastValidBlockHeight);
  return signature;
}

/**
 * The redeem of the maker escrow, built here and checked (`checkRedeemTransaction`), then signed by the wallet
 * and sent. The record says where the preimage went before it leaves, and the redeem's id before it is sent.
 */
export async function redeemFromWallet(
  steps: WalletSteps,
  record: SwapRecord,
  terms: LockTerms,
  wallet: TakerWallet,
  onRevealed?: () => void,
): Promise<string> {
  const lifetime = await steps.rpc.latestBlockhash();
  const preimage = fromHex(record.preimage);
  const unsigned = await redeemTransaction({
    programId: steps.programId,
    taker: record.wallet.address,
    makerEscrow: terms.makerEscrow,
    outputMint: terms.outputMint,
    preimage,
    lifetime,
  });
  refuseUnless(
    'redeem',
    checkRedeemTransaction(
      unsigned,
      await redeemExpectation({
        programId: steps.programId,
        taker: record.wallet.address,
        makerEscrow: terms.makerEscrow,
        outputMint: terms.outputMint,
        preimage,
        maxPriorityFeeLamports: steps.maxPriorityFeeLamports,
        maxComputeUnitLimit: steps.maxComputeUnitLimit,
      }),
    ),
  );
  // Durable before the preimage leaves inside a transaction handed to the wallet.
  const at = record.revealed?.at ?? new Date().toISOString();
  const via = record.revealed?.via ?? 'chain';
  if (!record.revealed) {
    record.revealed = { via, at };
    await steps.store.put(record);
  }
  onRevealed?.();
  const signature = await sendFromWallet(steps, wallet, record, unsigned, lifetime.lastValidBlockHeight, {
    // The redeem's id, stored before it is sent: a crash while it lands still finds it.
    onSigned: async (id) => {
      record.revealed = { via, at, signature: id };
      await steps.store.put(record);
    },
  });
  record.revealed = { via, at, signature };
  await steps.store.put(record);
  return signature;
}

/**
 * The refund of the taker escrow, once the chain's clock passed its expiry (NotRefundableError before, or
 * when it is not locked): built here, checked (`checkRefundTransaction`), signed by the wallet and sent.
 */
export async function refundFromWallet(
  steps: WalletSteps,
  record: SwapRecord,
  terms: LockTerms,
  wallet: TakerWallet,
): Promise<string> {
  const read = await steps.rpc.read([terms.takerEscrow]);
  const account = read.accounts[0];
  if (!account || account.owner !== steps.programId)
    throw new NotRefundableError(`no taker escrow at ${terms.takerEscrow}: nothing is locked to refund`);
  const escrow = decodeEscrow(account.data);
  if (escrow.status !== 'locked')
    throw new NotRefundableError(
      `the taker escrow is ${escrow.status}, not locked`,
      escrow.expiry,
      read.clock.unixTimestamp,
    );
  if (read.clock.unixTimestamp < escrow.expiry)
    throw new NotRefundableError(
      `the taker escrow expires at ${escrow.expiry}; the chain's time is ${read.clock.unixTimestamp}`,
      escrow.expiry,
      read.clock.unixTimestamp,
    );
  const lifetime = await steps.rpc.latestBlockhash();
  const unsigned = await refundTransaction({
    programId: steps.programId,
    taker: record.wallet.address,
    takerEscrow: terms.takerEscrow,
    inputMint: escrow.mint,
    lifetime,
  });
  refuseUnless(
    'refund',
    checkRefundTransaction(
      unsigned,
      await refundExpectation({
        programId: steps.programId,
        taker: record.wallet.address,
        takerEscrow: terms.takerEscrow,
        inputMint: escrow.mint,
        maxPriorityFeeLamports: steps.maxPriorityFeeLamports,
        maxComputeUnitLimit: steps.maxComputeUnitLimit,
      }),
    ),
  );
  return sendFromWallet(steps, wallet, record, unsigned, lifetime.lastValidBlockHeight);
}

/** 'paid' once redeemed (or closed after a redeem: before its expiry nothing else ends it); else its status. */
export function makerEscrowStatus(
  programId: string,
  account: { owner: string; data: Uint8Array } | null,
): 'paid' | 'locked' | 'refunded' | 'cancelled' {
  if (!account || account.owner !== programId) return 'paid';
  const { status } = decodeEscrow(account.data);
  return status === 'redeemed' ? 'paid' : status;
}

/**
 * After a reveal to the service: the maker escrow read until it is paid. At `deadline` (chain time) the
 * client stops waiting and redeems it from the fallback wallet; should the service's redeem land meanwhile,
 * the taker is paid and its own redeem's failure is no matter. Answers who landed it.
 */
export async function watchServiceRedeem(
  steps: WalletSteps,
  a: {
    record: SwapRecord;
    terms: LockTerms;
    fallback: TakerWallet;
    deadline: bigint;
    pollMs: number;
    onFallback?: () => void;
  },
): Promise<{ via: 'chain' | 'service'; fellBack: boolean; signature: string | null }> {
  const status = async () =>
    makerEscrowStatus(steps.programId, (await steps.rpc.read([a.terms.makerEscrow])).accounts[0] ?? null);
  for (;;) {
    const read = await steps.rpc.read([a.terms.makerEscrow]);
    const now = makerEscrowStatus(steps.programId, read.accounts[0] ?? null);
    if (now === 'paid') return { via: 'service', fellBack: false, signature: null };
    if (now !== 'locked')
      throw new TakerStateError(
        `the maker escrow ${a.terms.makerEscrow} ended ${now} without paying the taker`,
      );
    if (read.clock.unixTimestamp >= a.deadline) break;
    await new Promise((resolve) => setTimeout(resolve, a.pollMs));
  }
  a.onFallback?.();
  try {
    const signature = await redeemFromWallet(steps, a.record, a.terms, a.fallback);
    return { via: 'chain', fellBack: true, signature };
  } catch (error) {
    if (error instanceof TransactionFailedError && (await status()) === 'paid')
      return { via: 'service', fellBack: false, signature: null };
    throw error;
  }
}
