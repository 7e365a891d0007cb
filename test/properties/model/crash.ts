// The kill -9 property: a taker drives one swap against the service running as a child process, the process
// is SIGKILLed between two steps or while a step is in flight, and a new in-process service on the same
// DATA_DIR adopts the trade. Nothing acknowledged may be lost, no second maker lock may ever be signed, and
// the trade must still finish (redeemed, or both sides refunded) with every invariant of the model. While no
// process runs, the taker may act on chain itself and the clock may pass an expiry.
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { AIRDROP_SOL_RESERVE } from '../../../src/chain/embedded/ledger.ts';
import { resolveConfig } from '../../../src/config/index.ts';
import { tempDir } from '../../support/service.ts';
import { chainAlone } from '../../support/taker-moves.ts';
import { startChild } from './child.ts';
import { type ClockJump, type MoveKind, takerMoves } from './commands.ts';
import {
  CLOSED_SUBSTATES,
  checkInvariants,
  finale,
  isFinal,
  isoSeconds,
  kindsOf,
  type Model,
  type MTrade,
  rest,
  type Status,
  settle,
} from './model.ts';
import {
  type Json,
  modelConfigDocument,
  newSecret,
  SOL,
  SYMBOL,
  TIMING,
  USDC,
  USDT,
  World,
} from './world.ts';

const PAIRS = [
  { input: SOL, output: USDC, amount: '0.5', decimals: 9 },
  { input: USDC, output: USDT, amount: '30', decimals: 6 },
  { input: USDC, output: SOL, amount: '40', decimals: 6 },
] as const;

/** Steps the taker takes; `acked` of them are answered before the kill. */
export const CRASH_STEPS = ['settle', 'lock', 'makerLocked', 'redeem'] as const;

export interface CrashCase {
  pair: number;
  /** How many steps were acknowledged before the kill (1..4). */
  acked: number;
  /** Kill this many ms into the next step instead of between steps (null: between steps). */
  inflightMs: number | null;
  /** After the restart the taker redeems (if it still can), else it walks away. */
  redeemAfter: boolean;
  /** While the process is dead: the taker's transactions on chain, before and after a clock jump. */
  moves: { before: MoveKind[]; clock: ClockJump; after: MoveKind[] } | null;
}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

function sign(base64: string, wallet: Keypair): string {
  const tx = Transaction.from(Buffer.from(base64, 'base64'));
  tx.partialSign(wallet);
  return tx.serialize({ requireAllSignatures: true }).toString('base64');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const RANK: Record<Status, number> = { pending: 0, initiated: 1, redeemed: 2, refunded: 2, failed: 2 };

export async function runCrashCase(c: CrashCase, log: string[]): Promise<void> {
  const dir = tempDir('rfq-model-crash-');
  const pair = PAIRS[c.pair % PAIRS.length] as (typeof PAIRS)[number];
  const wallet = Keypair.generate();
  const taker = wallet.publicKey.toBase58();
  const secret = newSecret();
  const raw = BigInt(Math.round(Number(pair.amount) * 10 ** pair.decimals));
  let world: World | undefined;
  const child = await startChild(dir.path);
  let settlement: Json = null;
  let quote: Json = null;
  let makerExpiry: number | null = null;
  let ackedSeqs: number[] = [];
  let ackedStatus: Status = 'pending';
  try {
    // ── before the kill, over real HTTP ─────────────────────────────────────────────────────────
    const air = await child.post('/v1/dev/airdrop', {
      wallet: taker,
      asset: SYMBOL[pair.input],
      amount: pair.amount,
    });
    check(air.status === 200, `airdrop ${air.status}`);
    const rfq = await child.post('/v1/rfq', {
      input_asset: SYMBOL[pair.input],
      output_asset: SYMBOL[pair.output],
      amount: pair.amount,
      taker_wallet: taker,
    });
    check(rfq.body.status === 'accepted', `rfq ${JSON.stringify(rfq.body)}`);
    quote = rfq.body;
    const steps: Record<(typeof CRASH_STEPS)[number], () => Promise<void>> = {
      settle: async () => {
        const res = await child.post(`/v1/quotes/${quote.quote_id}/wallet-settlement`, {
          taker_wallet: taker,
          secret_hash: secret.secretHash,
        });
        check(res.status === 201, `settlement ${res.status} ${JSON.stringify(res.body)}`);
        settlement = res.body;
      },
      lock: async () => {
        const res = await child.post(`/v1/trades/${settlement.trade_id}/lock`, {
          transaction_base64: sign(settlement.taker_lock_transaction.transaction_base64, wallet),
        });
        check(res.status === 202, `lock ${res.status} ${JSON.stringify(res.body)}`);
      },
      makerLocked: async () => {
        const until = Date.now() + 15_000;
        for (;;) {
          const view = (await child.get(`/v1/trades/${settlement.trade_id}`)).body;
          if (view.substate === 'initiated.makerLocked') {
            makerExpiry = isoSeconds(view.maker_expires_at);
            return;
          }
          check(Date.now() < until, `maker never locked: ${JSON.stringify(view)}`);
          await sleep(50);
        }
      },
      redeem: async () => {
        const res = await child.post(`/v1/trades/${settlement.trade_id}/redeem`, {
          preimage: secret.preimage,
        });
        check(res.status === 202, `redeem ${res.status} ${JSON.stringify(res.body)}`);
      },
    };
    for (const step of CRASH_STEPS.slice(0, c.acked)) await steps[step]();
    const next = CRASH_STEPS[c.acked];
    const tradeId = settlement.trade_id as string;
    // What the first process acknowledged: the trade, its events, its status.
    ackedSeqs = (await child.get(`/v1/trades/${tradeId}/events`)).body.events.map(
      (e: { seq: number }) => e.seq,
    );
    ackedStatus = (await child.get(`/v1/trades/${tradeId}`)).body.settlement_status;
    if (next !== undefined && c.inflightMs !== null) {
      log.push(`kill -9 ${c.inflightMs} ms into ${next}`);
      void steps[next]().catch(() => undefined);
      await sleep(c.inflightMs);
    } else {
      log.push(`kill -9 after ${CRASH_STEPS[c.acked - 1]}`);
    }
    await child.kill9();

    const t: MTrade = {
      n: 0,
      wallet,
      taker,
      inputMint: pair.input,
      outputMint: pair.output,
      inputRaw: BigInt(quote.input.amount_raw),
      outputRaw: BigInt(quote.output.amount_raw),
      quoteId: quote.quote_id,
      quotedAtMs: Date.now(),
      dead: false,
      secret,
      tradeId,
      lockTx: { base64: settlement.taker_lock_transaction.transaction_base64, at: 0 },
      takerEscrow: settlement.taker_escrow,
      makerEscrow: settlement.maker_escrow,
      lockDeadline: isoSeconds(settlement.lock_deadline),
      takerExpiry: isoSeconds(settlement.expires_at),
      makerExpiry,
      locked: c.acked >= 2,
      lockSubmitted: false,
      abandoned: false,
      lateLock: false,
      wrongTerms: null,
      redeemRequested: c.acked >= 4,
      takerRedeemed: false,
      refundRequested: false,
      chainMoved: false,
      takerClosed: false,
      donated: { maker: 0n, taker: 0n },
      outcome: null,
      eventCount: 0,
      start: {
        input: raw + (pair.input === SOL ? AIRDROP_SOL_RESERVE : 0n),
        output: pair.output === SOL ? AIRDROP_SOL_RESERVE : 0n,
      },
      seen: null,
      lastView: null,
      sourced: false,
      sourcing: null,
    };
    check(t.inputRaw === raw, 'quote input');
    const model: Model = { trades: [t], maxTrades: 1 };

    // ── while no process runs: the taker's own moves on chain, the clock perhaps past an expiry ──
    if (c.moves !== null && c.acked >= 1) {
      const { before, clock, after } = c.moves;
      const note = (line: string) => log.push(`while killed, ${line}`);
      await chainAlone(dir.path, resolveConfig(modelConfigDocument()), async (chain) => {
        await takerMoves(chain, t, before, note);
        const maker = await chain.readEscrow(new PublicKey(t.makerEscrow), 'finalized');
        const to =
          clock === 'makerExpiry'
            ? maker
              ? Number(maker.expiry)
              : null
            : clock === 'takerExpiry'
              ? t.takerExpiry
              : null;
        const now = Number(await chain.now());
        if (to !== null && now < to) {
          note(`advance ${to - now}s`);
          await chain.advanceClock(to - now);
          // Whatever the dead process had in flight (a maker lock signed, not landed) may have lapsed
          // meanwhile: from here the model expects what the chain shows.
          t.chainMoved = true;
        }
        if (after.length > 0) await takerMoves(chain, t, after, note);
      });
    }

    // ── a new process on the same DATA_DIR ──────────────────────────────────────────────────────
    world = await World.open(dir.path, () => undefined);
    const w = world;
    const res = await w.get(`/v1/trades/${tradeId}`);
    check(res.status === 200, `after kill -9 the trade answers ${res.status} ${JSON.stringify(res.body)}`);
    const status = res.body.settlement_status as Status;
    check(RANK[status] >= RANK[ackedStatus], `kill -9 took the trade back from ${ackedStatus} to ${status}`);
    if (isFinal(ackedStatus)) check(status === ackedStatus, `kill -9 moved a final trade to ${status}`);
    const seqs = new Set((await w.events(tradeId)).map((e) => e.seq));
    check(
      ackedSeqs.every((s) => seqs.has(s)),
      'kill -9 lost acknowledged events',
    );
    // Every unclosed trade is adopted by the new run (a closed one may show either run).
    const closed = CLOSED_SUBSTATES.includes(res.body.substate);
    check(
      closed || res.body.current_run === true,
      `after kill -9 a ${res.body.substate} trade is not owned by the new run`,
    );

    // The step in flight may or may not have taken effect; a client retries it, as a front end would.
    if (c.inflightMs !== null && next === 'lock' && !t.chainMoved) {
      const retry = await w.post(`/v1/trades/${tradeId}/lock`, {
        transaction_base64: sign(t.lockTx?.base64 as string, wallet),
      });
      log.push(
        `lock retried after the kill: ${retry.status} ${retry.body?.error?.code ?? retry.body.settlement_status}`,
      );
      // The held lock's blockhash may have expired during the restart; the model decides from the window.
      if (retry.status === 202) t.locked = true;
      else if ((await w.service.chain.readEscrow(new PublicKey(t.takerEscrow), 'confirmed')) !== null)
        t.locked = true;
      else if ((await w.trade(tradeId)).substate === 'pending.lockSubmitted') t.lockSubmitted = true;
    }
    if (t.locked && !t.chainMoved) await waitForMakerLock(w, t);
    if (c.inflightMs !== null && next === 'redeem' && !t.chainMoved) {
      const retry = await w.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage });
      log.push(`redeem retried after the kill: ${retry.status}`);
      check(
        retry.status === 202,
        `redeem retried after the kill: ${retry.status} ${JSON.stringify(retry.body)}`,
      );
      t.redeemRequested = true;
    }
    await settle(model, w, 20_000);
    await rest(model, w);
    await checkInvariants(model, w);

    // ── finish the trade ────────────────────────────────────────────────────────────────────────
    const now = await w.now();
    if (
      c.redeemAfter &&
      !t.chainMoved &&
      !t.redeemRequested &&
      t.makerExpiry !== null &&
      now < t.makerExpiry - TIMING.landing_margin_seconds - 2
    ) {
      const redeem = await w.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage });
      check(redeem.status === 202, `redeem after restart ${redeem.status} ${JSON.stringify(redeem.body)}`);
      t.redeemRequested = true;
    }
    for (let i = 0; i < 6; i++) {
      await settle(model, w, 20_000);
      await rest(model, w);
      await checkInvariants(model, w);
      if (t.lastView && isFinal(t.lastView.settlement_status) && !t.lastView.next_action) break;
      const at = await w.now();
      const deadlines = [t.lockDeadline + 1, t.makerExpiry ?? 0, t.takerExpiry].filter((d) => d > at);
      if (deadlines.length === 0) break;
      await w.advance(Math.min(...deadlines) - at + 1);
    }
    const view = t.lastView as Json;
    check(
      isFinal(view.settlement_status),
      `the trade did not finish: ${view.settlement_status}/${view.substate}`,
    );
    // Never a second maker lock: one maker-lock intent signature at most, across both runs.
    const intents = new Set(
      (await w.events(tradeId))
        .filter((e: Json) => e.type === 'TX_INTENT' && e.payload?.kind === 'maker_lock')
        .map((e: Json) => e.payload.signature),
    );
    check(intents.size <= 1, `${intents.size} maker lock signatures were sent`);
    check(kindsOf(view).filter((k) => k === 'maker_lock').length <= 1, 'two maker locks');
    // Time runs out: the trade closes, recording what the chain shows.
    await finale(model, w);
  } catch (error) {
    const stored = world && settlement ? await storedHistory(world, settlement.trade_id) : '';
    throw new Error(
      `${(error as Error).message}${stored}\n-- child output --\n${child.output().slice(-3000)}`,
      { cause: error },
    );
  } finally {
    await child.kill9().catch(() => undefined);
    if (world) await world.service.close().catch(() => undefined);
    dir.remove();
  }
}

/** The trade's stored events and the new run's failing effects, for a failure's report. */
async function storedHistory(w: World, tradeId: string): Promise<string> {
  try {
    const events = await w.events(tradeId);
    const runtime = (await w.get('/v1/runtime')).body;
    const height = await w.service.chain.blockHeight();
    return (
      `\n-- stored events (block height now ${height}) --\n` +
      events.map((e) => `${e.seq} ${e.type} ${e.settlement_status} ${JSON.stringify(e.payload)}`).join('\n') +
      `\n-- failing effects --\n${JSON.stringify(runtime.actors?.failing_effects)}`
    );
  } catch (error) {
    return `\n-- stored events unreadable: ${(error as Error).message}`;
  }
}

async function waitForMakerLock(w: World, t: MTrade): Promise<void> {
  const until = Date.now() + 15_000;
  for (;;) {
    const view = await w.trade(t.tradeId as string);
    if (view.maker_expires_at && kindsOf(view).includes('maker_lock')) {
      t.makerExpiry = isoSeconds(view.maker_expires_at);
      return;
    }
    check(Date.now() < until, `maker never locked after the restart: ${JSON.stringify(view)}`);
    await sleep(30);
  }
}
