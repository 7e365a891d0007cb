// The trade machine's effects, made real: each invoked actor of machines/trade.machine.ts on the chain
// port. Every one
// - waits for the durability barrier first: the transition that started it is on disk before anything
//   is sent (and a maker-signed transaction's intent before it is sent); if that transition could not be
//   stored, the effect fails without acting (the trade is taken up again from what was stored);
// - is idempotent: a re-run after a restart finds the movement done and answers it;
// - answers what the chain proves (escrow endings), so a taker who settled an escrow first, in either
//   direction, moves the trade to where the funds really went;
// - rejects with an EffectFailure { message, at } — `at` the chain time, from which the machine backs off.
import { setTimeout as sleep } from 'node:timers/promises';
import type { PublicKey } from '@solana/web3.js';
import { fromPromise } from 'xstate';
import type {
  BroadcastTakerLockInput,
  BroadcastTakerLockOutput,
  CheckInventoryInput,
  CheckInventoryOutput,
  CloseEscrowsInput,
  EffectFailure,
  EscrowEffectInput,
  EscrowEnding,
  EscrowTerms,
  MakerLockInput,
  MakerLockOutput,
  MakerRefundOutput,
  PriceCheck,
  RedeemEffectInput,
  SendSourcingInput,
  SendSourcingOutput,
  SignMakerLockInput,
  SignMakerLockOutput,
  SignSourcingInput,
  SignSourcingOutput,
} from '../../machines/index.ts';
import type {
  ChainPort,
  Commitment,
  EscrowState,
  LandResult,
  SignedMakerTransaction,
} from '../chain/index.ts';
import { isChainError, publicKey } from '../chain/index.ts';
import { bytesOf } from '../vocabulary/index.ts';
import { escrowEnding } from './endings.ts';
import { landSourcingSwap, type PostSwap, type SourcingHooks, signSourcingSwap } from './sourcing.ts';

export interface EffectHooks {
  /**
   * Resolves once everything the runtime has written so far is durable; rejects if a write of this trade
   * failed (the transition that started the effect is not stored: nothing may act on it).
   */
  barrier(tradeId: string): Promise<void>;
  /** Durably records that a transaction of this kind and signature is about to be sent. */
  recordIntent(tradeId: string, kind: string, signature: string, lastValidBlockHeight: number): Promise<void>;
  /**
   * The maker transactions of the trade (its intents) whose network fee the ledger does not show yet, with
   * the last block height each could land at (null for an intent recorded before it was noted).
   */
  unpostedFees(tradeId: string): Promise<{ signature: string; lastValidBlockHeight: number | null }[]>;
  /**
   * The fee the maker paid for one of the trade's transactions, once the chain showed it final (landed or
   * failed): posted to the trade's ledger as a network_fee, once, whatever the transaction moved.
   */
  postFee(tradeId: string, signature: string, lamports: bigint): Promise<void>;
  /** The runtime's best knowledge of chain time (the failure time of an effect). */
  chainTime(): number;
  /** The trade's quote re-priced from the current price snapshot (the maker's last look before it locks). */
  reprice(quoteId: string): Promise<PriceCheck | null>;
  minRedeemWindowSeconds: number;
  landTimeoutMs: number;
  /** How long the taker lock's broadcast waits between rounds while the chain cannot be reached. */
  rebroadcastPauseMs?: number;
  /** Just-in-time sourcing's aggregator and bounds; null (or absent): a sourcing step is declined. */
  sourcing?: SourcingHooks | null;
  /** Books a final sourcing swap on the trade's ledger, once per signature. */
  postSwap?: PostSwap;
}

const key = (address: string) => publicKey(address);

/** An effect's rejection: the machine records it and retries after a backoff from `at`. */
export class EffectError extends Error implements EffectFailure {
  override name = 'EffectError';
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

/** How often a fee still pending on chain (not final, or its transaction may still land) is asked again. */
const FEE_WAIT_POLL_MS = 1_000;

/** Not final yet, or not visible yet: try again later. */
class NotYet extends Error {}

export function chainEffects(chain: ChainPort, hooks: EffectHooks) {
  /**
   * Every effect: after the barrier; any failure becomes an EffectError stamped with chain time. `signal`
   * aborts once the trade left the effect's state (the actor stopped it): a long effect stops there.
   */
  const effect = <TOutput, TInput extends { tradeId: string }>(
    run: (input: TInput, signal: AbortSignal) => Promise<TOutput>,
  ) =>
    fromPromise<TOutput, TInput>(async ({ input, signal }) => {
      try {
        await hooks.barrier(input.tradeId);
        // Stopped meanwhile (its trade left the state, or was dropped after a failed write): nothing to do.
        if (signal.aborted) throw new Error('the effect was stopped before it began');
        return await run(input, signal);
      } catch (error) {
        throw new EffectError((error as Error).message ?? String(error), hooks.chainTime());
      }
    });

  /** Send and land a maker-signed transaction; answers its signature once final and successful. */
  async function land(tradeId: string, kind: string, tx: SignedMakerTransaction): Promise<string> {
    await hooks.recordIntent(tradeId, kind, tx.signature, tx.lastValidBlockHeight);
    const result = await chain.land(tx, 'finalized', hooks.landTimeoutMs);
    if (result.status === 'finalized') {
      void hooks.postFee(tradeId, tx.signature, result.fee);
      if (result.err === null) return tx.signature;
      throw new Error(`${kind} ${tx.signature} failed on chain: ${result.err}`);
    }
    throw new NotYet(`${kind} ${tx.signature} not final (${describe(result)})`);
  }

  const read = (address: string, commitment: Commitment = 'finalized'): Promise<EscrowState | null> =>
    chain.readEscrow(key(address), commitment);

  /** A redeem must land before the escrow expires, a maker lock before its lock deadline: its priority fee rises as that nears. */
  const untilDeadline = (deadline: number) => ({ secondsLeft: deadline - hooks.chainTime() });

  /** The escrow's ending as the chain shows it now; throws while it shows none (the effect retries). */
  async function ended(terms: EscrowTerms, state?: EscrowState | null): Promise<EscrowEnding> {
    const current = state === undefined ? await read(terms.address) : state;
    const ending = await escrowEnding(chain, terms, current, 'finalized');
    if (ending === null) {
      throw new NotYet(
        current === null
          ? `escrow ${terms.address} not found and no settlement of it in its history`
          : `escrow ${terms.address} is ${current.status}; its settlement is not visible yet`,
      );
    }
    return ending;
  }

  /**
   * The fee of a transaction that settled the trade's escrow without this attempt seeing it land (an earlier
   * attempt before a crash, say), when the maker paid for it: the ledger must show every fee the maker paid.
   */
  async function postFeeIfMakers(tradeId: string, signature: string): Promise<void> {
    const tx = await chain.getTransaction(signature, 'finalized');
    if (tx !== null && tx.accountKeys[0] === chain.makerWallet.toBase58()) {
      await hooks.postFee(tradeId, signature, tx.fee);
    }
  }

  /**
   * Posts the fee of every intent of the trade the chain shows final and the ledger does not yet. An intent
   * still unknown to the chain never landed once the chain is past its last valid block height (read before
   * its status, so a landing between the two reads is not missed). Until then it could still land: a
   * transaction a killed run recorded and perhaps sent, which the next run signed again — up to a
   * blockhash's life (150 blocks: a minute) after it was signed. That wait, like a transaction's
   * finalization, is one the chain ends as its blocks go by, so the effect waits for it as long as the
   * block height moves (asking every second), whatever a landing's timeout is; it fails and retries only
   * when the height stood still for landTimeoutMs (a stalled chain) or a read failed. Failing every few
   * seconds instead counted and logged each attempt as a failure and backed off past the moment it could
   * close.
   */
  async function settleFees(tradeId: string, signal: AbortSignal): Promise<void> {
    let progress = { height: Number.NEGATIVE_INFINITY, at: Date.now() };
    for (const { signature, lastValidBlockHeight } of await hooks.unpostedFees(tradeId)) {
      for (;;) {
        const height = await chain.blockHeight();
        if (height > progress.height) progress = { height, at: Date.now() };
        const state = await chain.signatureState(signature);
        if (state.status === 'finalized') {
          await hooks.postFee(tradeId, signature, state.fee);
          break;
        }
        const pending =
          state.status !== 'unknown'
            ? `${signature} not final yet`
            : lastValidBlockHeight !== null && height <= lastValidBlockHeight
              ? `${signature} may still land (block height ${height} ≤ ${lastValidBlockHeight})`
              : null;
        if (pending === null) break;
        if (signal.aborted) throw new NotYet(pending);
        if (Date.now() - progress.at >= hooks.landTimeoutMs)
          throw new NotYet(
            `${pending}; the chain stayed at block height ${height} for ${hooks.landTimeoutMs} ms`,
          );
        await sleep(FEE_WAIT_POLL_MS, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  /**
   * Settles a locked escrow with the maker's transaction, or answers how it already ended. A transaction
   * that fails on chain because someone settled the escrow first is not an error: the ending says how.
   */
  async function settle(
    input: EscrowEffectInput,
    kind: string,
    sign: (state: EscrowState) => Promise<SignedMakerTransaction>,
    outcome: (signature: string) => EscrowEnding,
    /** What the escrow is read at before acting: finalized, or confirmed for the maker's own fresh lock. */
    commitment: Commitment = 'finalized',
  ): Promise<EscrowEnding> {
    const { escrow } = input;
    const endedBefore = async (state: EscrowState | null) => {
      const ending = await ended(escrow, state);
      await postFeeIfMakers(input.tradeId, ending.signature);
      return ending;
    };
    const state = await read(escrow.address, commitment);
    if (state === null || state.status !== 'locked') return endedBefore(state);
    try {
      return outcome(await land(input.tradeId, kind, await sign(state)));
    } catch (error) {
      const after = await read(escrow.address, commitment);
      if (after === null || after.status !== 'locked') return endedBefore(after);
      throw error;
    }
  }

  return {
    // The taker's signed lock, broadcast round after round (each round rebroadcasts until the bytes land, or
    // for landTimeoutMs) while they can still land: a cluster that drops a send must not lose the swap. An
    // unreachable chain only pauses it. Past the lock window the program refuses the lock anyway.
    broadcastTakerLock: effect<BroadcastTakerLockOutput, BroadcastTakerLockInput>(async (input, signal) => {
      const { signature, transactionBase64, lastValidBlockHeight } = input.submission;
      // Unknown blockhash lifetime: bounded by the lock window below instead.
      const tx = {
        signature,
        transactionBase64,
        lastValidBlockHeight: lastValidBlockHeight ?? Number.MAX_SAFE_INTEGER,
      };
      while (!signal.aborted) {
        try {
          // The estimate says when to ask; only the chain's own clock says the window is over.
          if (hooks.chainTime() > input.lockDeadline && Number(await chain.now()) > input.lockDeadline) {
            return { outcome: 'lapsed' };
          }
          const result = await chain.land(tx, 'confirmed', hooks.landTimeoutMs);
          if (result.status === 'expired') return { outcome: 'lapsed' };
          if (result.status !== 'unknown') return { outcome: result.err === null ? 'landed' : 'refused' };
        } catch (error) {
          if (!isChainError(error, 'unavailable')) {
            return { outcome: isChainError(error, 'blockhash_expired') ? 'lapsed' : 'refused' };
          }
          await sleep(hooks.rebroadcastPauseMs ?? 1_000, undefined, { signal }).catch(() => undefined);
        }
      }
      return { outcome: 'lapsed' };
    }),

    checkInventory: effect<CheckInventoryOutput, CheckInventoryInput>(async (input) => {
      const [balance, now, price] = await Promise.all([
        chain.tokenBalance(chain.makerWallet, key(input.outputMint)),
        chain.now(),
        hooks.reprice(input.quoteId),
      ]);
      return { available: balance >= BigInt(input.outputAmountRaw), now: Number(now), price };
    }),

    // The sourcing swap quoted within the plan's bounds and signed (nothing sent); a refusal is an answer
    // (the maker declines and releases the taker), a chain that does not answer an error (retried).
    signSourcing: effect<SignSourcingOutput, SignSourcingInput>((input) =>
      signSourcingSwap(chain, hooks.sourcing ?? null, input),
    ),

    // The intent's sourcing swap landed (its bytes rebroadcast until final, or proved lapsed) and booked.
    sendSourcing: effect<SendSourcingOutput, SendSourcingInput>(async (input) => {
      const { intent } = input;
      await hooks.recordIntent(
        input.tradeId,
        'aggregator_swap',
        intent.signature,
        intent.lastValidBlockHeight,
      );
      const postSwap = hooks.postSwap;
      if (postSwap === undefined) throw new Error('no ledger to book a sourcing swap on');
      const sent = await landSourcingSwap(chain, postSwap, input, hooks.landTimeoutMs);
      switch (sent.status) {
        case 'pending':
          throw new NotYet(`sourcing swap ${intent.signature} not final yet (${sent.detail})`);
        case 'landed':
          return {
            landed: true,
            signature: sent.signature,
            soldRaw: sent.soldRaw,
            boughtRaw: sent.boughtRaw,
          };
        case 'expired':
        case 'failed':
          return { landed: false, expired: sent.status === 'expired', now: Number(await chain.now()) };
      }
    }),

    signMakerLock: effect<SignMakerLockOutput, SignMakerLockInput>(async (input) => {
      // The maker lock may land no later than the moment that still leaves the taker its redeem window.
      const lockDeadline = input.expiry - hooks.minRedeemWindowSeconds;
      return chain.signMakerLock(
        {
          takerEscrow: key(input.takerEscrow),
          taker: key(input.recipient),
          outputMint: key(input.mint),
          amount: BigInt(input.amountRaw),
          hashlock: bytesOf(input.hashlock),
          expiry: BigInt(input.expiry),
          lockDeadline: BigInt(lockDeadline),
        },
        untilDeadline(lockDeadline),
      );
    }),

    // Landed once confirmed: the taker checks the maker's escrow on chain, at the commitment it chooses,
    // before it reveals; waiting for finality here would make every taker wait for it. (Its fee is posted once
    // final, by the trade's closing if not here.)
    makerLock: effect<MakerLockOutput, MakerLockInput>(async (input) => {
      const { intent } = input;
      await hooks.recordIntent(input.tradeId, 'maker_lock', intent.signature, intent.lastValidBlockHeight);
      const result: LandResult = await chain.land(intent, 'confirmed', hooks.landTimeoutMs);
      if (result.status === 'finalized') void hooks.postFee(input.tradeId, intent.signature, result.fee);
      const landed = result.status === 'confirmed' || result.status === 'finalized';
      if (landed && result.err === null) return { landed: true, signature: intent.signature };
      // Whatever happened to the transaction, the escrow decides: a maker escrow that exists came from this
      // intent (its address is unique to the trade, and a lock is signed again only once the last is proved
      // lapsed).
      if (await read(input.makerEscrow, 'confirmed')) {
        if (result.status !== 'finalized') await postFeeIfMakers(input.tradeId, intent.signature);
        return { landed: true, signature: intent.signature };
      }
      if (result.status === 'expired' || (result.status === 'finalized' && result.err !== null)) {
        return { landed: false, expired: result.status === 'expired', now: Number(await chain.now()) };
      }
      throw new NotYet(`maker lock ${intent.signature} not final yet (${describe(result)})`);
    }),

    // The maker escrow, redeemed for the taker with the preimage it handed over (funds go to it only); read
    // at confirmed, as the maker lock was landed (a redeem of an escrow that is not there cannot land).
    takerRedeem: effect<EscrowEnding, RedeemEffectInput>((input) =>
      settle(
        input,
        'taker_redeem',
        (state) =>
          chain.signRedeemFor(
            {
              takerEscrow: requireTakerEscrow(state),
              taker: key(input.escrow.recipient),
              outputMint: state.mint,
              preimage: bytesOf(input.preimage),
            },
            untilDeadline(Number(state.expiry)),
          ),
        (signature) => ({ kind: 'paid', signature, preimage: input.preimage }),
        'confirmed',
      ),
    ),

    // The taker escrow, redeemed for the maker with the revealed preimage.
    makerRedeem: effect<EscrowEnding, RedeemEffectInput>((input) =>
      settle(
        input,
        'maker_redeem',
        // Before the taker escrow's expiry, or the taker may refund it: the fee rises as that nears.
        (state) =>
          chain.signMakerRedeem(
            {
              takerEscrow: key(input.escrow.address),
              inputMint: state.mint,
              preimage: bytesOf(input.preimage),
            },
            untilDeadline(Number(state.expiry)),
          ),
        (signature) => ({ kind: 'paid', signature, preimage: input.preimage }),
      ),
    ),

    // The maker escrow back to the maker after its expiry; `absent` when no maker lock ever landed.
    makerRefund: effect<MakerRefundOutput, EscrowEffectInput>(async (input) => {
      const state = await read(input.escrow.address);
      if (state === null) {
        const ending = await escrowEnding(chain, input.escrow, null, 'finalized');
        return ending ?? { kind: 'absent' };
      }
      return settle(
        input,
        'maker_refund',
        () => chain.signMakerRefund({ makerEscrow: key(input.escrow.address), outputMint: state.mint }),
        (signature) => ({ kind: 'returned', signature, how: 'refunded' }),
      );
    }),

    // The taker escrow released at once by the maker, its recipient.
    makerCancel: effect<EscrowEnding, EscrowEffectInput>((input) =>
      settle(
        input,
        'maker_cancel',
        (state) =>
          chain.signMakerCancel({
            takerEscrow: key(input.escrow.address),
            taker: key(input.escrow.initializer),
            inputMint: state.mint,
          }),
        (signature) => ({ kind: 'returned', signature, how: 'cancelled' }),
      ),
    ),

    // The taker escrow's expiry refund, submitted by the maker (funds go to the taker only).
    takerRefund: effect<EscrowEnding, EscrowEffectInput>((input) =>
      settle(
        input,
        'taker_refund',
        (state) =>
          chain.signRefundFor({
            takerEscrow: key(input.escrow.address),
            taker: key(input.escrow.initializer),
            inputMint: state.mint,
          }),
        (signature) => ({ kind: 'returned', signature, how: 'refunded' }),
      ),
    ),

    // Rent of the settled maker escrow back to the maker; tokens donated to its vault swept with it.
    // The trade's last effect: the maker escrow's rent back, then the books — every maker transaction of
    // the trade that reached the chain has its fee in the ledger (one whose landing no attempt saw, after a
    // crash, is found here), before the trade closes.
    closeEscrows: effect<unknown, CloseEscrowsInput>(async (input, signal) => {
      const state = await read(input.makerEscrow);
      const closed =
        state && state.status !== 'locked'
          ? await land(
              input.tradeId,
              'close_maker_escrow',
              await chain.signClose({ escrow: key(input.makerEscrow), mint: state.mint }),
            )
          : null;
      await settleFees(input.tradeId, signal);
      return closed;
    }),
  };
}

function requireTakerEscrow(state: EscrowState): PublicKey {
  if (!state.takerEscrow) throw new Error('maker escrow names no taker escrow');
  return state.takerEscrow;
}

function describe(result: LandResult): string {
  return result.status === 'expired' || result.status === 'unknown'
    ? result.status
    : `${result.status}, ${result.err}`;
}
