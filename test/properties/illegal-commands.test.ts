// State × command coverage over HTTP, on the embedded chain with real taker keypairs: real trades are driven
// into every settlement state the HTTP layer can reach, and in each one every trade command is sent. A
// command the statechart does not allow answers its documented 4xx envelope and changes nothing in the store
// (the trade row with its snapshot JSON, its events and ledger entries, and the quote and trade counts); an
// exact repeat of a command that took effect answers 202 with the trade as it is, and also changes nothing.
// The tests run in order on one service: the later ones move the shared chain clock forward.
import { Keypair, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ERROR_CODES } from '../../src/http/errors.ts';
import type { TestService } from '../support/service.ts';
import { newSecret, signAsWallet, Taker } from '../support/taker.ts';
import {
  advancePast,
  type DrivenTrade,
  envelopeProblem,
  makerLockedTrade,
  pendingTrade,
  StoreProbe,
  signedLock,
  startPropertyService,
} from './support.ts';

let service: TestService;
let probe: StoreProbe;

beforeAll(async () => {
  service = await startPropertyService();
  probe = new StoreProbe(service.store.location);
});
afterAll(async () => {
  probe?.close();
  await service?.dispose();
});

/** A parsed JSON body. */
type Json = ReturnType<typeof JSON.parse>;

// ── Commands ────────────────────────────────────────────────────────────────────────────────────

/** The same wallet-signed lock with its taker signature corrupted: well-formed, but no chain accepts it. */
function corruptSignature(signedBase64: string): string {
  const bytes = Buffer.from(signedBase64, 'base64');
  // byte 0 is the signature count (compact-u16, < 128 here); the first signature follows
  bytes[1] = (bytes[1] ?? 0) ^ 0xff;
  bytes[2] = (bytes[2] ?? 0) ^ 0x55;
  return bytes.toString('base64');
}

/** The trade's lock paid for and signed by a stranger: not the lock the service built (the taker's is missing). */
function strangerSigned(unsignedBase64: string): string {
  const tx = Transaction.from(Buffer.from(unsignedBase64, 'base64'));
  const stranger = Keypair.generate();
  tx.feePayer = stranger.publicKey;
  tx.partialSign(stranger);
  return tx.serialize({ requireAllSignatures: false }).toString('base64');
}

/** The first signature of a wallet-signed transaction, base58: what the lock is known by. */
function signatureOf(signedBase64: string): string {
  const signature = Transaction.from(Buffer.from(signedBase64, 'base64')).signatures[0]?.signature;
  if (!signature) throw new Error('unsigned');
  return bs58.encode(signature);
}

/** A well-formed signature nobody ever sent. */
const FAKE_SIGNATURE = bs58.encode(Buffer.alloc(64, 7));

type CommandName =
  | 'lock: the signed lock'
  | 'lock: its signature'
  | 'lock: corrupted signature'
  | 'lock: signed by a stranger'
  | 'lock: a signature never sent'
  | 'abandon: right hash'
  | 'abandon: wrong hash'
  | 'redeem: right preimage'
  | 'redeem: wrong preimage'
  | 'redeem?mode=wallet: right preimage'
  | 'redeem?mode=wallet: wrong preimage'
  | 'refund'
  | 'refund?mode=wallet'
  | 'resume'
  | 'settlement retry';

interface Subject extends DrivenTrade {
  /** The wallet-signed lock of the settlement's unsigned lock. */
  lock: string;
}

const subject = (trade: DrivenTrade): Subject => ({ ...trade, lock: signedLock(trade) });

function send(t: Subject, command: CommandName): Promise<LightMyRequestResponse> {
  const url = (action: string, query = '') => `/v1/trades/${t.tradeId}/${action}${query}`;
  const wrong = newSecret();
  const post = (path: string, payload?: unknown) => t.taker.post(path, payload);
  switch (command) {
    case 'lock: the signed lock':
      return post(url('lock'), { transaction_base64: t.lock });
    case 'lock: its signature':
      return post(url('lock'), { signature: signatureOf(t.lock) });
    case 'lock: corrupted signature':
      return post(url('lock'), { transaction_base64: corruptSignature(t.lock) });
    case 'lock: signed by a stranger':
      return post(url('lock'), {
        transaction_base64: strangerSigned(t.settlement.taker_lock_transaction.transaction_base64),
      });
    case 'lock: a signature never sent':
      return post(url('lock'), { signature: FAKE_SIGNATURE });
    case 'abandon: right hash':
      return post(url('abandon'), { secret_hash: t.secret.secretHash });
    case 'abandon: wrong hash':
      return post(url('abandon'), { secret_hash: wrong.secretHash });
    case 'redeem: right preimage':
      return post(url('redeem'), { preimage: t.secret.preimage });
    case 'redeem: wrong preimage':
      return post(url('redeem'), { preimage: wrong.preimage });
    case 'redeem?mode=wallet: right preimage':
      return post(url('redeem', '?mode=wallet'), { preimage: t.secret.preimage });
    case 'redeem?mode=wallet: wrong preimage':
      return post(url('redeem', '?mode=wallet'), { preimage: wrong.preimage });
    case 'refund':
      return post(url('refund'));
    case 'refund?mode=wallet':
      return post(url('refund', '?mode=wallet'));
    case 'resume':
      return post(url('resume'));
    case 'settlement retry':
      return post(`/v1/quotes/${t.quote.quote_id}/wallet-settlement`, {
        taker_wallet: t.taker.address,
        secret_hash: t.secret.secretHash,
      });
  }
}

// ── What nothing-changed means ──────────────────────────────────────────────────────────────────

function stored(tradeId: string) {
  const f = probe.fingerprint();
  return { trade: probe.trade(tradeId), quotes: f.quotes, quotesUsed: f.quotesUsed, trades: f.trades };
}

/** An answer: the status, and the error code for an error. 200/202 answers carry the trade. */
type Expected = { status: 200 | 202 } | { code: keyof typeof ERROR_CODES };

const ok = (status: 200 | 202): Expected => ({ status });
const refused = (code: keyof typeof ERROR_CODES): Expected => ({ code });

/**
 * Sends every command of the table to the trade, in its current state, and checks each answer and that the
 * store is exactly as before. Failures are collected, so one run shows the whole row of the state.
 */
async function expectMatrix(
  t: Subject,
  state: string | RegExp,
  table: Partial<Record<CommandName, Expected>>,
) {
  const view = await t.taker.trade(t.tradeId);
  if (typeof state === 'string') expect(view.substate, JSON.stringify(view)).toBe(state);
  else expect(view.substate, JSON.stringify(view)).toMatch(state);
  const substate: string = view.substate;
  const problems: string[] = [];
  for (const [command, expected] of Object.entries(table) as [CommandName, Expected][]) {
    const before = stored(t.tradeId);
    const res = await send(t, command);
    const after = stored(t.tradeId);
    const label = `${substate} × ${command}`;
    const answer = `${res.statusCode} ${res.body.slice(0, 300)}`;
    if ('code' in expected) {
      const problem = envelopeProblem(res);
      if (problem !== null) problems.push(`${label}: not the envelope (${problem}): ${answer}`);
      else if (res.json().error.code !== expected.code)
        problems.push(`${label}: expected ${expected.code}, got ${answer}`);
    } else if (res.statusCode !== expected.status) {
      problems.push(`${label}: expected ${expected.status}, got ${answer}`);
    } else {
      const body = res.json();
      const trade = command.startsWith('settlement') ? body : (body.trade ?? body);
      if (trade.trade_id !== t.tradeId) problems.push(`${label}: answered another trade: ${answer}`);
      if (expected.status === 202 && trade.substate !== substate)
        problems.push(`${label}: the answer shows ${trade.substate}`);
    }
    if (JSON.stringify(after) !== JSON.stringify(before)) {
      const types = probe.eventTypes(t.tradeId).slice(before.trade.events);
      problems.push(`${label}: changed the store (${answer}); new events: ${types.join(', ') || 'none'}`);
    }
  }
  expect(problems, problems.join('\n')).toEqual([]);
}

// Commands refused the same way in every state that has no taker lock on chain.
const NO_ESCROWS: Partial<Record<CommandName, Expected>> = {
  'abandon: wrong hash': refused('secret_hash_mismatch'),
  'redeem: right preimage': refused('not_redeemable'),
  'redeem: wrong preimage': refused('preimage_mismatch'),
  'redeem?mode=wallet: right preimage': refused('not_redeemable'),
  'redeem?mode=wallet: wrong preimage': refused('preimage_mismatch'),
  refund: refused('not_refundable'),
  'refund?mode=wallet': refused('not_refundable'),
  'lock: signed by a stranger': refused('lock_mismatch'),
  resume: ok(202),
};

const waitUntil = (t: Subject, done: (trade: Json) => boolean) => t.taker.waitFor(t.tradeId, done, 20_000);

/** Until the store marks the trade closed: final, and nothing of it left for the runtime to do. */
async function waitClosed(t: Subject): Promise<void> {
  const until = Date.now() + 20_000;
  while ((probe.trade(t.tradeId).row as { closed: number }).closed !== 1) {
    if (Date.now() > until) throw new Error(`trade ${t.tradeId} never closed`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// ── The states ──────────────────────────────────────────────────────────────────────────────────

describe('every trade command in every state reachable over HTTP', { concurrent: false }, () => {
  test('pending.awaitingLock: only abandon (right hash) and a lock are allowed', async () => {
    const t = subject(await pendingTrade(service));
    await expectMatrix(t, 'pending.awaitingLock', {
      ...NO_ESCROWS,
      'settlement retry': ok(200),
    });
  });

  // Found by this suite (now fixed): the lock used to be recorded before the chain was asked, so a lock the
  // chain refused answered 400 yet left a lock signature that could never land, blocking abandon.
  test.each([
    ['corrupted signature', 'valid'],
    ['the taker cannot pay for it', 'unfunded'],
  ] as const)(
    'pending.awaitingLock: a lock the chain refuses (%s) is a 400 that changes nothing',
    async (_label, kind) => {
      let t: Subject;
      let transaction: string;
      if (kind === 'valid') {
        t = subject(await pendingTrade(service));
        transaction = corruptSignature(t.lock);
      } else {
        // no airdrop: the wallet has no lamports for the fee or the wrapped SOL
        const taker = new Taker(service.app);
        const quote = await taker.quote('SOL', 'USDC', '0.5');
        const secret = newSecret();
        const settlement = (await taker.settle(quote.quote_id, secret)).json();
        t = subject({ taker, secret, quote, settlement, tradeId: settlement.trade_id });
        transaction = signAsWallet(settlement.taker_lock_transaction.transaction_base64, taker.wallet);
      }
      const before = stored(t.tradeId);
      const res = await t.taker.post(`/v1/trades/${t.tradeId}/lock`, { transaction_base64: transaction });
      expect(envelopeProblem(res), res.body).toBeNull();
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.code).toBe('validation_failed');
      expect(
        { ...stored(t.tradeId), events: probe.eventTypes(t.tradeId) },
        'a refused lock left a lock signature behind',
      ).toEqual({ ...before, events: ['SETTLEMENT_STARTED'] });
      // …and so the taker can still abandon.
      const abandon = await t.taker.post(`/v1/trades/${t.tradeId}/abandon`, {
        secret_hash: t.secret.secretHash,
      });
      expect(abandon.statusCode, abandon.body).toBe(202);
    },
  );

  test('pending.awaitingLock: a signature the chain has never seen is a 409 lock_not_found that changes nothing', async () => {
    const t = subject(await pendingTrade(service));
    const before = stored(t.tradeId);
    const first = await send(t, 'lock: its signature');
    // Retryable: the wallet may still be sending it. Nothing is recorded until the chain knows the lock,
    // so nobody holding a trade id can block its abandon with a made-up signature.
    expect(first.statusCode, first.body).toBe(409);
    expect(first.json().error.code).toBe('lock_not_found');
    expect({ ...stored(t.tradeId), events: probe.eventTypes(t.tradeId) }).toEqual({
      ...before,
      events: ['SETTLEMENT_STARTED'],
    });
    // The signed lock itself then lands under that signature: the trade moves on.
    const locked = await send(t, 'lock: the signed lock');
    expect(locked.statusCode, locked.body).toBe(202);
    expect(locked.json().settlement_status).toBe('initiated');
  });

  // One trade through its life: each test moves it on, so they run in this order whatever the shuffle.
  describe('one trade abandoned', { shuffle: false }, () => {
    let abandoned: Subject;
    test('pending → failed by abandon: five concurrent identical abandons all answer 202, one transition is stored', async () => {
      abandoned = subject(await pendingTrade(service));
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => send(abandoned, 'abandon: right hash')),
      );
      expect(answers.map((r) => r.statusCode)).toEqual([202, 202, 202, 202, 202]);
      const bodies = answers.map((r) => r.json());
      for (const body of bodies) {
        expect(body.trade_id).toBe(abandoned.tradeId);
        expect(body.settlement_status).toBe('failed');
        expect(body.failure_reason).toBe('abandoned');
      }
      expect(probe.eventTypes(abandoned.tradeId).filter((type) => type === 'ABANDON')).toEqual(['ABANDON']);
      // The replay answers exactly as the first time did.
      const again = await send(abandoned, 'abandon: right hash');
      expect(again.statusCode).toBe(202);
      expect(again.json()).toEqual(bodies[0]);
    });

    test('failed after abandon: only the abandon replay answers 202', async () => {
      // failed, its lock window still open (the runtime watches for a late lock until it ends)
      await expectMatrix(abandoned, /^failed\./, {
        ...NO_ESCROWS,
        'abandon: right hash': ok(202),
        'lock: the signed lock': refused('lock_window_closed'),
        'lock: corrupted signature': refused('lock_window_closed'),
        'lock: a signature never sent': refused('lock_window_closed'),
        'settlement retry': refused('lock_window_closed'),
      });
    });
  });

  describe('one trade the maker locked, redeemed and closed', { shuffle: false }, () => {
    let locked: Subject;
    test('initiated.makerLocked: refusals, the lock replay and the wallet redeem change nothing', async () => {
      locked = subject(await makerLockedTrade(service));
      await expectMatrix(locked, 'initiated.makerLocked', {
        'abandon: right hash': refused('not_abandonable'),
        'abandon: wrong hash': refused('secret_hash_mismatch'),
        'lock: the signed lock': ok(202),
        'lock: its signature': ok(202),
        'lock: corrupted signature': refused('lock_signature_exists'),
        'lock: signed by a stranger': refused('lock_mismatch'),
        'lock: a signature never sent': refused('lock_signature_exists'),
        'redeem: wrong preimage': refused('preimage_mismatch'),
        'redeem?mode=wallet: right preimage': ok(200),
        'redeem?mode=wallet: wrong preimage': refused('preimage_mismatch'),
        refund: refused('not_refundable'),
        'refund?mode=wallet': refused('not_refundable'),
        resume: ok(202),
        'settlement retry': refused('lock_window_closed'),
      });
    });

    test('initiated.makerLocked → redeemed: five concurrent identical redeems all answer 202, one transition is stored', async () => {
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => send(locked, 'redeem: right preimage')),
      );
      expect(
        answers.map((r) => r.statusCode),
        answers.map((r) => r.body).join('\n'),
      ).toEqual([202, 202, 202, 202, 202]);
      for (const r of answers) expect(r.json().trade_id).toBe(locked.tradeId);
      await waitUntil(locked, (t) => t.settlement_status === 'redeemed');
      await waitClosed(locked);
      expect(probe.eventTypes(locked.tradeId).filter((type) => type === 'REDEEM_REQUESTED')).toEqual([
        'REDEEM_REQUESTED',
      ]);
    });

    test('redeemed.closed: the redeem and lock replays answer 202; everything else is refused', async () => {
      await expectMatrix(locked, 'redeemed.closed', {
        'redeem: right preimage': ok(202),
        'redeem: wrong preimage': refused('preimage_mismatch'),
        'redeem?mode=wallet: right preimage': refused('not_redeemable'),
        'redeem?mode=wallet: wrong preimage': refused('preimage_mismatch'),
        'abandon: right hash': refused('not_abandonable'),
        'abandon: wrong hash': refused('secret_hash_mismatch'),
        'lock: the signed lock': ok(202),
        'lock: its signature': ok(202),
        'lock: a signature never sent': refused('lock_signature_exists'),
        'lock: signed by a stranger': refused('lock_mismatch'),
        refund: refused('not_refundable'),
        'refund?mode=wallet': refused('not_refundable'),
        resume: ok(202),
        'settlement retry': refused('lock_window_closed'),
      });
    });

    // From here on the shared chain clock moves forward.
  });

  test('failed by lock window expiry: abandon is refused (the trade failed another way)', async () => {
    const t = subject(await pendingTrade(service));
    await advancePast(service, t.settlement.lock_deadline);
    const failed = await t.taker.waitFor(t.tradeId, (v) => v.settlement_status === 'failed');
    expect(failed.failure_reason).toBe('lock_window_expired');
    await waitClosed(t); // the window is over: nothing more can happen to it
    await expectMatrix(t, /^failed\./, {
      ...NO_ESCROWS,
      'abandon: right hash': refused('not_abandonable'),
      'lock: the signed lock': refused('lock_window_closed'),
      'lock: corrupted signature': refused('lock_window_closed'),
      'lock: a signature never sent': refused('lock_window_closed'),
      'settlement retry': refused('lock_window_closed'),
    });
  });

  test('initiated.awaitingTakerExpiry, then refunded.closed: refunds by the runtime are not replays of a refund', async () => {
    const t = subject(await makerLockedTrade(service));
    const view = await t.taker.trade(t.tradeId);
    await advancePast(service, view.maker_expires_at);
    await waitUntil(t, (v) => v.substate === 'initiated.awaitingTakerExpiry');
    const afterMakerRefund = {
      'abandon: right hash': refused('not_abandonable'),
      'abandon: wrong hash': refused('secret_hash_mismatch'),
      'lock: the signed lock': ok(202),
      'lock: a signature never sent': refused('lock_signature_exists'),
      'redeem: right preimage': refused('not_redeemable'),
      'redeem: wrong preimage': refused('preimage_mismatch'),
      'redeem?mode=wallet: right preimage': refused('not_redeemable'),
      'redeem?mode=wallet: wrong preimage': refused('preimage_mismatch'),
      refund: refused('not_refundable'),
      'refund?mode=wallet': refused('not_refundable'),
      resume: ok(202),
      'settlement retry': refused('lock_window_closed'),
    } satisfies Partial<Record<CommandName, Expected>>;
    // the taker escrow has not expired yet
    await expectMatrix(t, 'initiated.awaitingTakerExpiry', afterMakerRefund);
    await advancePast(service, view.expires_at);
    await waitUntil(t, (v) => v.settlement_status === 'refunded');
    await waitClosed(t);
    // the runtime refunded the taker escrow itself: a refund now is a 409, not a replay
    await expectMatrix(t, 'refunded.closed', afterMakerRefund);
  });
});
