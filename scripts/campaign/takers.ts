// The takers: each kind's script, over HTTP with a front end's retries and, for the kinds that do, with its
// own wallet on chain. Every trade a taker starts is registered with what the taker knows of it (escrows,
// deadlines, its secret, whether it still means to lock or redeem), which is what the timekeeper waits for
// and what the audit judges against.
import { createHash, randomBytes } from 'node:crypto';
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import type { Random } from '../../src/dev-chain/faults/index.ts';
import { loopbackDevChain } from '../../src/dev-chain/index.ts';
import { type Answer, GaveUp, type Json, type ServiceClient } from './client.ts';
import type { TakerKind } from './plan.ts';
import { type ChainAccess, redeemMakerEscrow, refundTakerEscrow } from './wallet.ts';
import type { World } from './world.ts';

export interface TradeRecord {
  tradeId: string;
  kind: TakerKind;
  taker: number;
  /** 1, or 2 for the fresh settlement a taker starts after its first one failed to lock. */
  attempt: number;
  wallet: Keypair;
  preimage: string;
  secretHash: string;
  pair: string;
  inputMint: string;
  outputMint: string;
  inputRaw: bigint;
  takerEscrow: string;
  makerEscrow: string;
  /** Unix seconds, chain time. */
  lockDeadline: number;
  takerExpiry: number;
  lockLastValidBlockHeight: number;
  /** The unsigned lock the settlement start handed out. */
  unsignedLock: string;
  /** The taker still means to lock / redeem: the timekeeper does not move time past it meanwhile. */
  wantsLock: boolean;
  wantsRedeem: boolean;
  /** POST /redeem was accepted: the service owes the taker its redeem while the maker escrow is locked. */
  redeemRequested: boolean;
  /** Wall time the service first answered a POST /lock carrying the signed bytes. */
  lockHandedOverAt: number | null;
  /** Wall ms, after the hand-over, that the service was up, the chain reachable and the lock landable. */
  lockChanceMs: number;
  notes: string[];
}

export interface TakerResult {
  taker: number;
  kind: TakerKind;
  trades: string[];
  /** How the taker's script ended. */
  ended: 'done' | 'rfq_rejected' | 'gave_up' | 'stopped' | 'error';
  detail: string;
  /** Each refused RFQ (or settlement start): when (wall ms) and why. */
  rfqRejections: { at: number; reasons: { check: string; message: string }[] }[];
}

export interface TakerContext {
  world: World;
  client: ServiceClient;
  direct: ChainAccess;
  faulty: ChainAccess;
  random: Random;
  records: TradeRecord[];
  /** The active phase's start and end (wall ms): notes count from the start; no fresh settlement after the end. */
  startedAt: number;
  activeEndsAt: number;
  /** Set when the campaign stops waiting: scripts end at their next look. */
  stopped: () => boolean;
}

const PAIRS = [
  { input: 'SOL', output: 'USDC', amount: '0.05' },
  { input: 'USDC', output: 'SOL', amount: '10' },
  { input: 'USDT', output: 'USDC', amount: '5' },
  { input: 'JUP', output: 'USDC', amount: '3' },
  { input: 'BONK', output: 'USDC', amount: '100000' },
] as const;

class Stopped extends Error {}

/** What the taker met, with when (seconds from the active phase's start). */
function note(ctx: TakerContext, record: TradeRecord, text: string): void {
  const at = Math.round((Date.now() - ctx.startedAt) / 1000);
  // The same thing met again in a row: one note, its first and last time and a count.
  const last = /^\+(\d+)s(?:…\+\d+s)? (.*?)(?: ×(\d+))?$/.exec(record.notes.at(-1) ?? '');
  if (last && last[2] === text) {
    record.notes[record.notes.length - 1] = `+${last[1]}s…+${at}s ${text} ×${Number(last[3] ?? 1) + 1}`;
    return;
  }
  record.notes.push(`+${at}s ${text}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const unix = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const isLockNotFound = (a: Answer) => a.status === 409 && a.json?.error?.code === 'lock_not_found';

function raw(amount: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

export async function runTaker(ctx: TakerContext, taker: number, kind: TakerKind): Promise<TakerResult> {
  const result: TakerResult = { taker, kind, trades: [], ended: 'done', detail: '', rfqRejections: [] };
  const wallet = Keypair.generate();
  const pair = ctx.random.pick(PAIRS);
  const check = () => {
    if (ctx.stopped()) throw new Stopped('the campaign stopped waiting');
  };
  try {
    const input = ctx.world.config.assets.list.find((a) => a.symbol === pair.input);
    if (!input) throw new Error(`no asset ${pair.input}`);
    const inputRaw = raw(pair.amount, input.decimals);
    // Funded straight at the chain's faucet: the campaign's setup, not a fault to meet.
    await loopbackDevChain(ctx.world.chain.url).airdrop({
      wallet: wallet.publicKey,
      mint: new PublicKey(input.mint),
      amount: inputRaw * 3n,
    });
    for (let attempt = 1; attempt <= 2; attempt++) {
      check();
      const record = await openTrade(ctx, result, { taker, kind, attempt, wallet, pair, inputRaw });
      if (!record) {
        result.ended = 'rfq_rejected';
        return result;
      }
      result.trades.push(record.tradeId);
      const locked = await play(ctx, record, check);
      if (locked !== 'lock_failed') break;
      if (Date.now() > ctx.activeEndsAt) {
        note(ctx, record, 'no fresh settlement: the active phase is over');
        break;
      }
      note(ctx, record, 'the lock did not land: a fresh settlement');
    }
    return result;
  } catch (error) {
    if (error instanceof Stopped) return { ...result, ended: 'stopped', detail: error.message };
    if (error instanceof GaveUp) return { ...result, ended: 'gave_up', detail: error.message };
    return { ...result, ended: 'error', detail: (error as Error).stack ?? String(error) };
  } finally {
    for (const id of result.trades) {
      const record = ctx.records.find((r) => r.tradeId === id);
      if (record) {
        record.wantsLock = false;
        record.wantsRedeem = false;
      }
    }
  }
}

/** RFQ (again after a refusal, for up to 30 s) and the settlement start; null when never quoted. */
async function openTrade(
  ctx: TakerContext,
  result: TakerResult,
  t: {
    taker: number;
    kind: TakerKind;
    attempt: number;
    wallet: Keypair;
    pair: (typeof PAIRS)[number];
    inputRaw: bigint;
  },
): Promise<TradeRecord | null> {
  const address = t.wallet.publicKey.toBase58();
  // A front end asks again while the maker says no, for half a minute: a refusal may be a passing state.
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    // A fresh secret for each settlement: a commitment is used once, even by a start that went wrong.
    const preimage = randomBytes(32);
    const secretHash = createHash('sha256').update(preimage).digest('hex');
    const quote = await ctx.client.call('POST', '/v1/rfq', {
      input_asset: t.pair.input,
      output_asset: t.pair.output,
      amount: t.pair.amount,
      taker_wallet: address,
    });
    if (quote.json?.status === 'rejected') {
      result.rfqRejections.push({ at: Date.now(), reasons: quote.json.reasons ?? [] });
      await sleep(2_000 + ctx.random.between(0, 1_000));
      continue;
    }
    if (quote.status !== 200 || quote.json?.status !== 'accepted') {
      throw new Error(`rfq: ${quote.status} ${JSON.stringify(quote.json).slice(0, 300)}`);
    }
    const settled = await ctx.client.call('POST', `/v1/quotes/${quote.json.quote_id}/wallet-settlement`, {
      taker_wallet: address,
      secret_hash: secretHash,
    });
    if (settled.status !== 201 && settled.status !== 200) {
      // The quote expired while the answers were lost: ask again.
      result.rfqRejections.push({
        at: Date.now(),
        reasons: [
          {
            check: 'wallet_settlement',
            message: `${settled.status} ${JSON.stringify(settled.json).slice(0, 200)}`,
          },
        ],
      });
      continue;
    }
    const s = settled.json;
    const inputMint = ctx.world.config.assets.list.find((a) => a.symbol === t.pair.input)?.mint ?? '';
    const outputMint = ctx.world.config.assets.list.find((a) => a.symbol === t.pair.output)?.mint ?? '';
    const record: TradeRecord = {
      tradeId: s.trade_id,
      kind: t.kind,
      taker: t.taker,
      attempt: t.attempt,
      wallet: t.wallet,
      preimage: preimage.toString('hex'),
      secretHash,
      pair: `${t.pair.amount} ${t.pair.input}→${t.pair.output}`,
      inputMint,
      outputMint,
      inputRaw: t.inputRaw,
      takerEscrow: s.taker_escrow,
      makerEscrow: s.maker_escrow,
      lockDeadline: unix(s.lock_deadline),
      takerExpiry: unix(s.expires_at),
      lockLastValidBlockHeight: s.taker_lock_transaction.last_valid_block_height,
      unsignedLock: s.taker_lock_transaction.transaction_base64,
      wantsLock: t.kind !== 'abandon' && t.kind !== 'no_show',
      wantsRedeem: false,
      redeemRequested: false,
      lockHandedOverAt: null,
      lockChanceMs: 0,
      notes: [],
    };
    ctx.records.push(record);
    return record;
  }
  return null;
}

/** The kind's moves on its trade; 'lock_failed' when its lock never landed (the taker may start again). */
async function play(
  ctx: TakerContext,
  record: TradeRecord,
  check: () => void,
): Promise<'ok' | 'lock_failed'> {
  const signed = Transaction.from(Buffer.from(record.unsignedLock, 'base64'));
  signed.partialSign(record.wallet);
  const bytes = signed.serialize({ requireAllSignatures: true });
  switch (record.kind) {
    case 'no_show':
      note(ctx, record, 'never locked');
      return 'ok';
    case 'abandon': {
      await sleep(ctx.random.between(0, 3_000));
      const answer = await ctx.client.call('POST', `/v1/trades/${record.tradeId}/abandon`, {
        secret_hash: record.secretHash,
      });
      note(
        ctx,
        record,
        `abandon: ${answer.status} ${answer.json?.error?.code ?? answer.json?.settlement_status}`,
      );
      return 'ok';
    }
    case 'honest':
    case 'walk_away':
    case 'self_refund': {
      if (!(await lockThroughService(ctx, record, bytes, check))) return 'lock_failed';
      record.wantsLock = false;
      if (record.kind === 'honest') await redeemThroughService(ctx, record, check);
      else if (record.kind === 'walk_away') note(ctx, record, 'walked away after locking');
      else await refundOwnEscrow(ctx, ctx.direct, record, check, 'refunds its escrow itself once expired');
      return 'ok';
    }
    case 'self_redeem_direct':
    case 'self_redeem_faulty': {
      const path = record.kind === 'self_redeem_direct' ? ctx.direct : ctx.faulty;
      if (!(await lockItself(ctx, path, record, bytes, check))) return 'lock_failed';
      record.wantsLock = false;
      await redeemItself(ctx, path, record, check);
      await refundOwnEscrow(
        ctx,
        path,
        record,
        check,
        'refunded its own escrow after the maker missed its redeem',
      );
      return 'ok';
    }
  }
}

/** Chain time and height, as the taker's direct view of the chain shows them. */
async function chainNow(ctx: TakerContext) {
  const { unix: now, slot } = await ctx.direct.clock();
  return { now, height: slot };
}

/**
 * POST /lock with the signed bytes: the same bytes again after a 409 lock_not_found, a 503 or no answer,
 * while the lock window is open and the blockhash valid. True once 202 (or the escrow is on chain).
 */
async function lockThroughService(
  ctx: TakerContext,
  record: TradeRecord,
  bytes: Buffer,
  check: () => void,
): Promise<boolean> {
  const body = { transaction_base64: bytes.toString('base64') };
  let posts = 0;
  for (;;) {
    check();
    const { now, height } = await chainNow(ctx);
    if (now > record.lockDeadline || height > record.lockLastValidBlockHeight) break;
    try {
      const answer = await ctx.client.call('POST', `/v1/trades/${record.tradeId}/lock`, body, {
        patienceMs: 20_000,
        seen: (a) => {
          // The service was reached with the bytes: from now on it owes them a landing while it can.
          record.lockHandedOverAt ??= Date.now();
          if (a.status === 503 || a.status === 429) {
            note(ctx, record, `lock: ${a.status} ${a.json?.error?.code ?? ''}`);
          }
        },
      });
      posts++;
      const shown = answer.json?.settlement_status
        ? `${answer.json.settlement_status}/${answer.json.substate}`
        : (answer.json?.error?.code ?? '');
      note(ctx, record, `lock: ${answer.status} ${shown}`);
      if (answer.status === 202) {
        if (answer.json?.settlement_status === 'failed') break;
        return true;
      }
      if (!isLockNotFound(answer)) break;
    } catch (error) {
      if (!(error instanceof GaveUp)) throw error;
    }
  }
  const escrow = await ctx.direct.escrow(new PublicKey(record.takerEscrow));
  if (escrow) {
    note(ctx, record, `lock on chain though the service never said 202 (${posts} answered posts)`);
    return true;
  }
  note(ctx, record, `lock never landed (${posts} answered posts)`);
  return false;
}

/** Waits for next_action redeem, then POST /redeem with the preimage; gives up once the redeem window is over. */
async function redeemThroughService(
  ctx: TakerContext,
  record: TradeRecord,
  check: () => void,
): Promise<void> {
  record.wantsRedeem = true;
  for (;;) {
    check();
    let trade: Json;
    try {
      trade = (
        await ctx.client.call('GET', `/v1/trades/${record.tradeId}`, undefined, { patienceMs: 15_000 })
      ).json;
    } catch (error) {
      if (!(error instanceof GaveUp)) throw error;
      trade = null;
    }
    if (trade && ['redeemed', 'refunded', 'failed'].includes(trade.settlement_status)) {
      note(ctx, record, `trade ended ${trade.substate} before the taker redeemed`);
      break;
    }
    if (trade?.next_action?.type === 'redeem') {
      const answer = await ctx.client
        .call(
          'POST',
          `/v1/trades/${record.tradeId}/redeem`,
          { preimage: record.preimage },
          { patienceMs: 30_000 },
        )
        .catch((error: unknown) => {
          if (error instanceof GaveUp) return null;
          throw error;
        });
      if (answer?.status === 202) {
        record.redeemRequested = true;
        note(ctx, record, 'redeem accepted (202)');
        break;
      }
      if (answer) note(ctx, record, `redeem: ${answer.status} ${answer.json?.error?.code ?? ''}`);
    }
    const maker = await ctx.direct.escrow(new PublicKey(record.makerEscrow));
    const { now } = await chainNow(ctx);
    if (maker && maker.status !== 'locked') {
      note(ctx, record, `maker escrow ${maker.status} before the taker could redeem`);
      break;
    }
    if (maker && now >= Number(maker.expiry) - 20) {
      note(ctx, record, 'the redeem window closed before the service offered the redeem');
      break;
    }
    if (!maker && now > record.takerExpiry) break;
    await sleep(1_000);
  }
  record.wantsRedeem = false;
}

/** The wallet sends its own lock (again until it lands), then tells the service its signature. */
async function lockItself(
  ctx: TakerContext,
  path: ChainAccess,
  record: TradeRecord,
  bytes: Buffer,
  check: () => void,
): Promise<boolean> {
  check();
  const sent = await path.sendUntilLanded(bytes, record.lockLastValidBlockHeight);
  if (!sent.landed || sent.err !== null) {
    note(ctx, record, `own lock did not land (${sent.landed ? JSON.stringify(sent.err) : sent.why})`);
    return false;
  }
  note(ctx, record, `own lock landed (${path.path})`);
  const signature = sent.signature;
  try {
    const answer = await ctx.client.call(
      'POST',
      `/v1/trades/${record.tradeId}/lock`,
      { signature },
      { again: isLockNotFound, patienceMs: 30_000 },
    );
    note(ctx, record, `lock signature posted: ${answer.status} ${answer.json?.error?.code ?? ''}`);
  } catch (error) {
    if (!(error instanceof GaveUp)) throw error;
    note(ctx, record, 'could not tell the service its lock signature');
  }
  return true;
}

/** Waits for the maker escrow on chain, waits a little more (so some redeems come at bad moments), redeems. */
async function redeemItself(ctx: TakerContext, path: ChainAccess, record: TradeRecord, check: () => void) {
  record.wantsRedeem = true;
  const makerEscrow = new PublicKey(record.makerEscrow);
  try {
    for (;;) {
      check();
      const maker = await path.escrow(makerEscrow);
      const { unix: now } = await path.clock();
      if (maker?.status === 'locked' && maker.recipient.equals(record.wallet.publicKey)) {
        const delayMs = ctx.random.between(0, 15_000);
        await sleep(delayMs);
        check();
        const latest = await path.clock();
        if (latest.unix >= Number(maker.expiry) - 5) {
          note(ctx, record, 'the maker escrow expired before the taker redeemed');
          return;
        }
        const sent = await path.submit(
          record.wallet,
          redeemMakerEscrow(
            path.programId,
            record.wallet.publicKey,
            makerEscrow,
            new PublicKey(record.outputMint),
            Buffer.from(record.preimage, 'hex'),
          ),
        );
        note(
          ctx,
          record,
          sent.landed && sent.err === null
            ? `redeemed the maker escrow itself (${path.path}, ${sent.signature}, after ${delayMs} ms)`
            : `own redeem failed: ${sent.landed ? JSON.stringify(sent.err) : `${sent.why} ${sent.detail}`}`,
        );
        if (sent.landed && sent.err === null) return;
        continue;
      }
      if (maker && maker.status !== 'locked') {
        note(ctx, record, `maker escrow ${maker.status} before the taker redeemed`);
        return;
      }
      const taker = await path.escrow(new PublicKey(record.takerEscrow));
      if (taker?.status !== 'locked') {
        note(ctx, record, `taker escrow ${taker?.status ?? 'closed'} while waiting for the maker lock`);
        return;
      }
      if (now > record.takerExpiry) return;
      await sleep(1_500);
    }
  } finally {
    record.wantsRedeem = false;
  }
}

/** Once its escrow expired still locked, the taker refunds it (anyone may; the funds go to the taker). */
async function refundOwnEscrow(
  ctx: TakerContext,
  path: ChainAccess,
  record: TradeRecord,
  check: () => void,
  why: string,
) {
  const takerEscrow = new PublicKey(record.takerEscrow);
  for (;;) {
    check();
    const escrow = await path.escrow(takerEscrow);
    if (escrow?.status !== 'locked') return;
    const { unix: now } = await path.clock();
    if (now >= Number(escrow.expiry)) {
      const sent = await path.submit(
        record.wallet,
        refundTakerEscrow(
          path.programId,
          record.wallet.publicKey,
          takerEscrow,
          new PublicKey(record.inputMint),
        ),
      );
      if (sent.landed && sent.err === null) {
        note(ctx, record, `${why} (${sent.signature})`);
        return;
      }
      if (!sent.landed && sent.why === 'refused') return;
    }
    await sleep(2_000 + ctx.random.between(0, 1_000));
  }
}
