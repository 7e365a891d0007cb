// The trade machine's effects, made real: each invoked actor of machines/trade.machine.ts implemented on
// the chain port. Every one is idempotent (a re-run after a restart finds the movement done and resolves
// with its signature), writes its intent to the store before it sends anything, and resolves only once
// its transaction is final.
import { PublicKey } from '@solana/web3.js';
import { fromPromise } from 'xstate';
import type {
  CheckInventoryInput,
  CheckInventoryOutput,
  CloseEscrowsInput,
  MakerLockInput,
  MakerLockOutput,
  MakerRedeemInput,
  MakerRefundInput,
  MakerRefundOutput,
  SignatureOutput,
  SignMakerLockInput,
  SignMakerLockOutput,
  TakerEscrowReleaseInput,
  TakerRedeemInput,
} from '../../machines/index.ts';
import type { ChainPort, EscrowState, LandResult, SignedMakerTransaction } from '../chain/index.ts';

export interface EffectHooks {
  /** Durably records that a transaction of this kind and signature is about to be sent. */
  recordIntent(tradeId: string, kind: string, signature: string): void;
  /** The fee a maker-paid transaction cost, for the ledger's network_fee entries. */
  recordFee(signature: string, lamports: bigint): void;
  minRedeemWindowSeconds: number;
  landTimeoutMs: number;
}

const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));
const key = (address: string) => new PublicKey(address);
/** Lets the snapshot that started an effect be persisted before the effect does anything. */
const afterPersist = () => new Promise<void>((resolve) => setImmediate(resolve));

export class EffectError extends Error {
  override name = 'EffectError';
}

export function chainEffects(chain: ChainPort, hooks: EffectHooks) {
  /** Send and land a maker-signed transaction; throws (so the machine retries) unless final and successful. */
  async function landOrThrow(tradeId: string, kind: string, tx: SignedMakerTransaction): Promise<string> {
    hooks.recordIntent(tradeId, kind, tx.signature);
    const result = await chain.land(tx, 'finalized', hooks.landTimeoutMs);
    if (result.status === 'finalized') {
      hooks.recordFee(tx.signature, result.fee);
      if (result.err === null) return tx.signature;
      throw new EffectError(`${kind} ${tx.signature} failed on chain: ${result.err}`);
    }
    throw new EffectError(`${kind} ${tx.signature} not final (${describe(result)})`);
  }

  /** The signature that moved an escrow out of `locked`: the newest successful one touching it. */
  async function settlingSignature(escrow: string): Promise<string | null> {
    const signatures = await chain.signaturesForAddress(key(escrow), 'finalized', 20);
    return signatures.find((s) => s.err === null)?.signature ?? null;
  }

  async function escrow(address: string): Promise<EscrowState | null> {
    return chain.readEscrow(key(address), 'finalized');
  }

  return {
    checkInventory: fromPromise<CheckInventoryOutput, CheckInventoryInput>(async ({ input }) => {
      const [balance, now] = await Promise.all([
        chain.tokenBalance(chain.makerWallet, key(input.outputMint)),
        chain.now(),
      ]);
      return { available: balance >= BigInt(input.outputAmountRaw), now: Number(now) };
    }),

    signMakerLock: fromPromise<SignMakerLockOutput, SignMakerLockInput>(async ({ input }) => {
      // The maker lock may land no later than the moment that still leaves the taker its redeem window.
      const lockDeadline = BigInt(input.expiry - hooks.minRedeemWindowSeconds);
      const tx = await chain.signMakerLock({
        takerEscrow: key(input.takerEscrow),
        taker: key(input.recipient),
        outputMint: key(input.mint),
        amount: BigInt(input.amountRaw),
        hashlock: hex(input.hashlock),
        expiry: BigInt(input.expiry),
        lockDeadline,
      });
      return tx;
    }),

    makerLock: fromPromise<MakerLockOutput, MakerLockInput>(async ({ input }) => {
      await afterPersist();
      const { intent } = input;
      hooks.recordIntent(input.tradeId, 'maker_lock', intent.signature);
      const result: LandResult = await chain.land(intent, 'finalized', hooks.landTimeoutMs);
      if (result.status === 'finalized') hooks.recordFee(intent.signature, result.fee);
      if (result.status === 'finalized' && result.err === null)
        return { landed: true, signature: intent.signature };
      // Whatever happened to the transaction, the escrow decides: a maker escrow that exists came from this
      // intent (its address is unique to the trade, and no other lock is ever signed for it).
      const existing = await escrow(input.makerEscrow);
      if (existing) return { landed: true, signature: intent.signature };
      if (result.status === 'expired' || (result.status === 'finalized' && result.err !== null)) {
        return { landed: false };
      }
      throw new EffectError(`maker lock ${intent.signature} not final yet (${describe(result)})`);
    }),

    takerRedeem: fromPromise<SignatureOutput, TakerRedeemInput>(async ({ input }) => {
      await afterPersist();
      const state = await escrow(input.makerEscrow);
      if (state && state.status !== 'locked') {
        const signature = await settlingSignature(input.makerEscrow);
        if (state.status === 'redeemed' && signature) return { signature };
        throw new EffectError(`maker escrow is ${state.status}, not redeemable`);
      }
      if (!state) throw new EffectError('maker escrow not found');
      const takerEscrow = state.takerEscrow;
      if (!takerEscrow) throw new EffectError('maker escrow names no taker escrow');
      const tx = await chain.signRedeemFor({
        takerEscrow,
        taker: key(input.recipient),
        outputMint: state.mint,
        preimage: hex(input.preimage),
      });
      return { signature: await landOrThrow(input.tradeId, 'taker_redeem', tx) };
    }),

    makerRedeem: fromPromise<SignatureOutput, MakerRedeemInput>(async ({ input }) => {
      await afterPersist();
      const state = await escrow(input.takerEscrow);
      if (!state) throw new EffectError('taker escrow not found');
      if (state.status !== 'locked') {
        const signature = await settlingSignature(input.takerEscrow);
        if (state.status === 'redeemed' && signature) return { signature };
        throw new EffectError(`taker escrow is ${state.status}, not redeemable`);
      }
      const tx = await chain.signMakerRedeem({
        takerEscrow: key(input.takerEscrow),
        inputMint: state.mint,
        preimage: hex(input.preimage),
      });
      return { signature: await landOrThrow(input.tradeId, 'maker_redeem', tx) };
    }),

    makerRefund: fromPromise<MakerRefundOutput, MakerRefundInput>(async ({ input }) => {
      await afterPersist();
      const state = await escrow(input.makerEscrow);
      if (!state) return { signature: null };
      if (state.status !== 'locked') {
        const signature = await settlingSignature(input.makerEscrow);
        if (state.status === 'refunded' && signature) return { signature };
        throw new EffectError(`maker escrow is ${state.status}, not refundable`);
      }
      const tx = await chain.signMakerRefund({ makerEscrow: key(input.makerEscrow), outputMint: state.mint });
      return { signature: await landOrThrow(input.tradeId, 'maker_refund', tx) };
    }),

    makerCancel: fromPromise<SignatureOutput, TakerEscrowReleaseInput>(async ({ input }) => {
      await afterPersist();
      return { signature: await releaseTakerEscrow(input, 'cancel') };
    }),

    takerRefund: fromPromise<SignatureOutput, TakerEscrowReleaseInput>(async ({ input }) => {
      await afterPersist();
      return { signature: await releaseTakerEscrow(input, 'refund') };
    }),

    closeEscrows: fromPromise<unknown, CloseEscrowsInput>(async ({ input }) => {
      await afterPersist();
      const state = await escrow(input.makerEscrow);
      if (!state || state.status === 'locked') return null;
      const tx = await chain.signClose({ escrow: key(input.makerEscrow) });
      return landOrThrow(input.tradeId, 'close_maker_escrow', tx);
    }),
  };

  /** Returns the taker escrow to the taker: by the maker's cancel (as recipient) or by the expiry refund. */
  async function releaseTakerEscrow(
    input: TakerEscrowReleaseInput,
    how: 'cancel' | 'refund',
  ): Promise<string> {
    const state = await escrow(input.takerEscrow);
    if (!state) throw new EffectError('taker escrow not found');
    if (state.status !== 'locked') {
      const signature = await settlingSignature(input.takerEscrow);
      if ((state.status === 'refunded' || state.status === 'cancelled') && signature) return signature;
      throw new EffectError(`taker escrow is ${state.status}`);
    }
    const args = {
      takerEscrow: key(input.takerEscrow),
      taker: key(input.initializer),
      inputMint: state.mint,
    };
    const tx = how === 'cancel' ? await chain.signMakerCancel(args) : await chain.signRefundFor(args);
    return landOrThrow(input.tradeId, how === 'cancel' ? 'maker_cancel' : 'taker_refund', tx);
  }
}

function describe(result: LandResult): string {
  return result.status === 'expired' || result.status === 'unknown'
    ? result.status
    : `${result.status}, ${result.err}`;
}
