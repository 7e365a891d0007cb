// The verdict, from the chain's own ledger (read in this process, not through the service): how each escrow
// was locked and how it ended, instruction by instruction, compared with what the service says of each
// trade, its ledger, and the maker's balances. Every problem names its trade, what the chain shows and what
// the service shows.
import { readFileSync } from 'node:fs';
import { PublicKey, Transaction } from '@solana/web3.js';
import type { StoredTransaction } from '../../src/chain/embedded/store.ts';
import { DEFAULT_HTLC_PROGRAM_ID, HTLC_INSTRUCTION_TAGS, vaultAddress } from '../../src/chain/htlc/index.ts';
import { NATIVE_MINT, readTokenAccount } from '../../src/chain/token.ts';
import { GaveUp, type Json, type ServiceClient } from './client.ts';
import { EXPECTED_STATUS, type TakerKind } from './plan.ts';
import type { TakerResult, TradeRecord } from './takers.ts';
import { EXPIRY_MARGIN_SECONDS, escrowAt, type Obligation } from './timekeeper.ts';
import type { World } from './world.ts';

export const CHECKS = [
  'revealed_not_redeemed',
  'escrow_locked_after_expiry',
  'not_closed',
  'status_mismatch',
  'unexpected_outcome',
  'taker_lock_lost',
  'ledger_unbalanced',
  'ledger_chain_mismatch',
  'maker_escrow_not_closed',
  'maker_balance_mismatch',
  'rfq_rejected_inventory',
  'service_exit',
  'service_unreadable',
  'campaign_error',
] as const;
export type Check = (typeof CHECKS)[number];

export interface Problem {
  check: Check;
  tradeId: string | null;
  kind: TakerKind | null;
  detail: string;
  chain: string;
  service: string;
  /** The trade's stored events, in order: what the service did and when (s from the active phase's start). */
  history?: string;
  /** What the taker met, in order. */
  taker?: string;
  /** The instances' warnings about the trade, each distinct message once with its count. */
  log?: string;
}

type Action = 'lock' | 'redeem' | 'refund' | 'cancel' | 'close';
const ACTIONS = Object.fromEntries(
  Object.entries(HTLC_INSTRUCTION_TAGS).map(([name, tag]) => [tag, name]),
) as Record<number, Action>;
/** Where each instruction names its escrow (programs/htlc/README.md). */
const ESCROW_INDEX: Record<Action, number> = { lock: 1, redeem: 0, refund: 0, cancel: 1, close: 1 };

export interface EscrowStep {
  action: Action;
  signature: string;
  slot: number;
  blockTime: number;
  /** Whose token account the escrow's funds went to (redeem, refund, cancel). */
  paidTo: string | null;
  preimage: string | null;
}

export interface EscrowHistory {
  address: string;
  steps: EscrowStep[];
  /** The account as it is now (null: never created, or closed). */
  status: 'locked' | 'redeemed' | 'refunded' | 'cancelled' | null;
  expiry: number | null;
  /** How it ended: the last of redeem, refund, cancel; null while locked or never locked. */
  ending: EscrowStep | null;
  locked: boolean;
}

/** The escrow's successful HTLC instructions, oldest first, read from the chain's ledger. */
export function escrowHistory(world: World, address: string): EscrowHistory {
  const records: StoredTransaction[] = world.chain.ledger.transactionsForAddress(address, 1_000).reverse();
  const steps: EscrowStep[] = [];
  for (const record of records) {
    if (record.err !== null) continue;
    const tx = Transaction.from(Buffer.from(record.bytes));
    for (const ix of tx.instructions) {
      if (!ix.programId.equals(DEFAULT_HTLC_PROGRAM_ID)) continue;
      const action = ACTIONS[ix.data[0] ?? -1];
      if (!action || ix.keys[ESCROW_INDEX[action]]?.pubkey.toBase58() !== address) continue;
      let paidTo: string | null = null;
      if (action === 'redeem' || action === 'refund' || action === 'cancel') {
        const gained = (record.tokenBalances ?? []).find(
          (b) => b.post && b.post.amount > (b.pre?.amount ?? 0n) && b.post.owner !== address,
        );
        paidTo = gained?.post?.owner ?? null;
      }
      steps.push({
        action,
        signature: record.signature,
        slot: record.slot,
        blockTime: record.blockTime,
        paidTo,
        preimage: action === 'redeem' ? Buffer.from(ix.data.subarray(1, 33)).toString('hex') : null,
      });
    }
  }
  const state = escrowAt(world, address);
  const ending = [...steps].reverse().find((s) => s.action !== 'lock' && s.action !== 'close') ?? null;
  return {
    address,
    steps,
    status: state?.status ?? null,
    expiry: state ? Number(state.expiry) : null,
    ending,
    locked: steps.some((s) => s.action === 'lock'),
  };
}

const describe = (h: EscrowHistory): string => {
  if (!h.locked) return 'never locked';
  const parts = h.steps.map(
    (s) => `${s.action}${s.paidTo ? ` to ${short(s.paidTo)}` : ''} (${short(s.signature)}, t=${s.blockTime})`,
  );
  return `${parts.join(', ')}${h.status === 'locked' ? `; still locked, expiry ${h.expiry}` : ''}`;
};
const short = (s: string) => `${s.slice(0, 8)}…`;

/**
 * What the chain says the trade's status must be, from its two escrows. `released`: the taker escrow
 * cancelled back with no maker lock — a failed trade's late lock, or a refunded one the maker could not serve.
 */
function statusOnChain(
  taker: EscrowHistory,
  maker: EscrowHistory,
  makerWallet: string,
): 'redeemed' | 'refunded' | 'failed' | 'released' | 'unsettled' | 'mixed' {
  if (taker.status === 'locked' || maker.status === 'locked') return 'unsettled';
  if (!taker.locked) return maker.locked ? 'mixed' : 'failed';
  const takerPaidMaker = taker.ending?.action === 'redeem' && taker.ending.paidTo === makerWallet;
  const makerPaidTaker = maker.ending?.action === 'redeem';
  if (takerPaidMaker && makerPaidTaker) return 'redeemed';
  if (takerPaidMaker || makerPaidTaker) return 'mixed';
  return !maker.locked && taker.ending?.action === 'cancel' ? 'released' : 'refunded';
}

/** The ledger movements the chain shows for a trade's escrows, each with its signature. */
function movementsOnChain(
  taker: EscrowHistory,
  maker: EscrowHistory,
  makerWallet: string,
): Map<string, string> {
  const moves = new Map<string, string>();
  for (const step of taker.steps) {
    if (step.action === 'lock') moves.set('taker_lock', step.signature);
    if (step.action === 'redeem' && step.paidTo === makerWallet) moves.set('maker_redeem', step.signature);
    if (step.action === 'refund' || step.action === 'cancel') moves.set('taker_refund', step.signature);
  }
  for (const step of maker.steps) {
    if (step.action === 'lock') moves.set('maker_lock', step.signature);
    if (step.action === 'redeem') moves.set('taker_redeem', step.signature);
    if (step.action === 'refund' || step.action === 'cancel') moves.set('maker_refund', step.signature);
  }
  return moves;
}

export interface ServiceView {
  /** The trade as GET /v1/trades/{id} answered (or the trade list, when that failed). */
  trade: Json | null;
  /** What stood in for it: `503 runtime_unavailable …` and the like. */
  answer: string;
}

export interface AuditInput {
  world: World;
  records: readonly TradeRecord[];
  takers: readonly TakerResult[];
  client: ServiceClient;
  overdue: readonly Obligation[];
  /** Wall ms the active phase began: times in the report count from it. */
  startedAt: number;
}

export interface AuditResult {
  problems: Problem[];
  /** Each trade's ending by kind: kind → `status/substate` → count. */
  endings: Record<string, Record<string, number>>;
  trades: number;
  unregistered: number;
}

async function readAll(client: ServiceClient): Promise<{ list: Map<string, Json>; ledger: Json | null }> {
  const list = new Map<string, Json>();
  let cursor: string | null = null;
  for (;;) {
    const answer = await client.call(
      'GET',
      `/v1/trades?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (answer.status !== 200) throw new Error(`trade list: ${answer.status} ${JSON.stringify(answer.json)}`);
    for (const trade of answer.json.trades) list.set(trade.trade_id, trade);
    cursor = answer.json.next_cursor;
    if (!cursor) break;
  }
  const ledger = await client.call('GET', '/v1/runtime/ledger');
  return { list, ledger: ledger.status === 200 ? ledger.json : null };
}

async function viewOf(
  client: ServiceClient,
  world: World,
  tradeId: string,
  listed: Json | null,
): Promise<ServiceView> {
  for (const instance of world.reachable()) {
    try {
      const { answer } = await client.once(instance, 'GET', `/v1/trades/${tradeId}`);
      if (answer.status === 200) return { trade: answer.json, answer: '200' };
      return {
        trade: listed,
        answer:
          `${answer.status} ${answer.json?.error?.code ?? ''} ${answer.json?.error?.message ?? ''}`.trim(),
      };
    } catch {
      // the next instance
    }
  }
  return { trade: listed, answer: 'no instance answered' };
}

const serviceText = (view: ServiceView): string => {
  const t = view.trade;
  const shown = t
    ? `${t.settlement_status} (${t.substate}${t.failure_reason ? `, ${t.failure_reason}` : ''}), signatures ${
        (t.tx_signature_kinds ?? []).map((s: { kind: string }) => s.kind).join('+') || 'none'
      }`
    : 'unknown';
  const answer = view.answer.length > 200 ? `${view.answer.slice(0, 200)}…` : view.answer;
  return view.answer === '200' ? shown : `GET /v1/trades/{id} → ${answer}; as stored: ${shown}`;
};

export async function audit(input: AuditInput): Promise<AuditResult> {
  const { world, records, client } = input;
  const problems: Problem[] = [];
  const maker = world.maker.toBase58();
  const now = Number(world.chain.ledger.tick().unix);
  const endings: AuditResult['endings'] = {};

  let list = new Map<string, Json>();
  let ledger: Json | null = null;
  try {
    ({ list, ledger } = await readAll(client));
  } catch (error) {
    problems.push({
      check: 'service_unreadable',
      tradeId: null,
      kind: null,
      detail: `the service's trade list or ledger could not be read: ${(error as Error).message}`,
      chain: '',
      service: error instanceof GaveUp ? 'no usable answer' : String(error),
    });
  }
  const byId = new Map(records.map((r) => [r.tradeId, r]));
  const ids = [...new Set([...records.map((r) => r.tradeId), ...list.keys()])];
  const entries: Json[] = ledger?.entries ?? [];
  const summaries = new Map<string, Json>((ledger?.summaries ?? []).map((s: Json) => [s.trade_id, s]));

  for (const tradeId of ids) {
    const record = byId.get(tradeId) ?? null;
    const kind = record?.kind ?? null;
    const view = await viewOf(client, world, tradeId, list.get(tradeId) ?? null);
    const trade = view.trade;
    const takerAddress = record?.takerEscrow ?? trade?.taker_escrow;
    const makerAddress = record?.makerEscrow ?? trade?.maker_escrow;
    if (!takerAddress || !makerAddress) continue;
    const taker = escrowHistory(world, takerAddress);
    const makerEscrow = escrowHistory(world, makerAddress);
    const chainText = `taker escrow ${short(takerAddress)}: ${describe(taker)}; maker escrow ${short(makerAddress)}: ${describe(makerEscrow)}`;
    const service = serviceText(view);
    const add = (check: Check, detail: string) =>
      problems.push({ check, tradeId, kind, detail, chain: chainText, service });
    const status: string | null = trade?.settlement_status ?? null;
    const key = `${status ?? 'unknown'}/${trade?.substate ?? view.answer}`;
    const table = endings[kind ?? 'unregistered'] ?? {};
    table[key] = (table[key] ?? 0) + 1;
    endings[kind ?? 'unregistered'] = table;

    // Every preimage revealed on chain was used by the maker to take the taker's input.
    const revealed = makerEscrow.ending?.action === 'redeem';
    const makerPaid = taker.ending?.action === 'redeem' && taker.ending.paidTo === maker;
    if (revealed && !makerPaid) {
      const lost = taker.ending
        ? `the taker escrow ended ${taker.ending.action} to ${short(taker.ending.paidTo ?? '?')}`
        : 'the taker escrow is still locked';
      add(
        'revealed_not_redeemed',
        `the preimage was revealed on chain at t=${makerEscrow.ending?.blockTime} (${short(makerEscrow.ending?.signature ?? '')}) and the maker never redeemed the taker escrow: ${lost}` +
          (taker.status === 'locked'
            ? ` (expiry ${taker.expiry}, chain now ${now}: anyone may refund it to the taker)`
            : ' — the maker paid its output and lost the input'),
      );
    }
    // No escrow left funded after its expiry plus margin.
    for (const [name, h] of [
      ['taker', taker],
      ['maker', makerEscrow],
    ] as const) {
      if (h.status === 'locked' && h.expiry !== null && now > h.expiry + EXPIRY_MARGIN_SECONDS) {
        add(
          'escrow_locked_after_expiry',
          `the ${name} escrow is still locked ${now - h.expiry} s past its expiry (margin ${EXPIRY_MARGIN_SECONDS} s)`,
        );
      }
    }
    // Terminal and closed, and the status the chain shows.
    const terminal = status === 'redeemed' || status === 'refunded' || status === 'failed';
    if (!terminal || trade?.next_action || view.answer !== '200') {
      add(
        'not_closed',
        view.answer === '200'
          ? `the trade is not terminal and closed at the end (next action ${trade?.next_action?.type ?? 'none'})`
          : 'the trade is not terminal and closed at the end, and the service does not serve it (see service)',
      );
    }
    const onChain = statusOnChain(taker, makerEscrow, maker);
    if (terminal && onChain !== 'unsettled') {
      const agrees =
        onChain === status || (onChain === 'released' && (status === 'failed' || status === 'refunded'));
      if (!agrees) add('status_mismatch', `the service says ${status}, the chain shows ${onChain}`);
    }
    // The trade's ledger names every movement the chain shows for its escrows, and no other.
    const onChainMovements = movementsOnChain(taker, makerEscrow, maker);
    const ledgered = new Map<string, string>();
    for (const e of entries) {
      if (e.trade_id === tradeId && e.movement !== 'network_fee') ledgered.set(e.movement, e.signature);
    }
    const missing = [...onChainMovements].filter(([m, sig]) => ledgered.get(m) !== sig);
    const extra = [...ledgered].filter(([m, sig]) => onChainMovements.get(m) !== sig);
    if (missing.length > 0 || extra.length > 0) {
      add(
        'ledger_chain_mismatch',
        `the trade's ledger ${missing.length ? `lacks ${missing.map(([m, sig]) => `${m} (on chain: ${short(sig)})`).join(', ')}` : ''}${
          missing.length && extra.length ? ' and ' : ''
        }${extra.length ? `has ${extra.map(([m, sig]) => `${m} (${short(sig)})`).join(', ')} the chain does not show` : ''}`,
      );
    }
    // A settled maker escrow is closed by the maker once the trade is: its rent is the maker's.
    if (terminal && !trade?.next_action && makerEscrow.locked && makerEscrow.status !== null) {
      add(
        'maker_escrow_not_closed',
        `the trade is closed but its maker escrow still exists (${makerEscrow.status}): the maker's rent is left in it`,
      );
    }
    if (!record) continue;

    // How the taker's kind must end, once its lock is on chain; a lock handed over that never landed.
    if (taker.locked) {
      const expected = EXPECTED_STATUS[record.kind];
      if (terminal && status !== expected && !(record.kind === 'abandon' || record.kind === 'no_show')) {
        add(
          'unexpected_outcome',
          `a ${record.kind} taker's trade must end ${expected}; it ended ${status} (${trade?.failure_reason ?? trade?.substate})`,
        );
      }
    } else if (record.lockHandedOverAt !== null && record.lockChanceMs >= 10_000) {
      add(
        'taker_lock_lost',
        `the taker posted its signed lock to the service, which then had ${Math.round(record.lockChanceMs / 1000)} s (up, the chain reachable, the lock window open, the blockhash valid) to land it; it never landed`,
      );
    }
  }

  // Ledgers: balanced per trade, every movement a transaction the chain has, the maker's holdings.
  const entriesByTrade = new Map<string, Json[]>();
  for (const e of entries) entriesByTrade.set(e.trade_id, [...(entriesByTrade.get(e.trade_id) ?? []), e]);
  for (const [tradeId, summary] of summaries) {
    if (!summary.balanced) {
      problems.push({
        check: 'ledger_unbalanced',
        tradeId,
        kind: byId.get(tradeId)?.kind ?? null,
        detail: "the trade's ledger does not balance",
        chain: '',
        service: JSON.stringify(summary),
      });
    }
  }
  for (const [tradeId, list] of entriesByTrade) {
    for (const e of list) {
      const tx = world.chain.ledger.transaction(e.signature);
      if (!tx || tx.err !== null) {
        problems.push({
          check: 'ledger_chain_mismatch',
          tradeId,
          kind: byId.get(tradeId)?.kind ?? null,
          detail: `ledger entry ${e.movement} ${e.side} ${e.amount_raw} of ${e.asset ?? e.mint} names ${e.signature}, which the chain ${tx ? 'has as failed' : 'does not have'}`,
          chain: tx ? JSON.stringify(tx.err) : 'no such transaction',
          service: `entry ${e.entry_id}`,
        });
      }
    }
  }
  const makerEscrows: string[] = [];
  for (const id of ids) {
    const address = byId.get(id)?.makerEscrow ?? list.get(id)?.maker_escrow;
    if (address) makerEscrows.push(address);
  }
  checkMakerHoldings(world, entries, makerEscrows, problems);

  for (const exit of world.exits) {
    problems.push({
      check: 'service_exit',
      tradeId: null,
      kind: null,
      detail: `${exit.instance} exited by itself (code ${exit.code}, signal ${exit.signal})`,
      chain: '',
      service: exit.tail.split('\n').slice(-6).join(' | '),
    });
  }
  for (const taker of input.takers) {
    const refusals = taker.rfqRejections.filter(({ reasons }) =>
      reasons.some((r) => r.check === 'inventory'),
    );
    const inventory = refusals.flatMap(({ reasons }) => reasons.filter((r) => r.check === 'inventory'));
    const when = refusals.map(({ at }) => Math.round((at - input.startedAt) / 1000));
    if (inventory.length > 0) {
      problems.push({
        check: 'rfq_rejected_inventory',
        tradeId: null,
        kind: taker.kind,
        detail: `taker ${taker.taker}'s RFQ was refused for inventory ${inventory.length} time(s) (at +${when[0]}…+${when.at(-1)} s)${
          taker.ended === 'rfq_rejected' ? ', for 30 s, and it gave up' : ''
        }, while the maker holds thousands of each asset on chain`,
        chain: '',
        service: [...new Set(inventory.map((r) => r.message))].slice(0, 2).join(' | '),
      });
    }
    if (taker.ended === 'error') {
      problems.push({
        check: 'campaign_error',
        tradeId: taker.trades.at(-1) ?? null,
        kind: taker.kind,
        detail: `taker ${taker.taker}'s script failed: ${taker.detail.split('\n').slice(0, 3).join(' ')}`,
        chain: '',
        service: '',
      });
    }
  }
  // The trades with problems get their stored history and their taker's notes.
  const runs = new Map<string, number>();
  for (const tradeId of new Set(problems.flatMap((p) => (p.tradeId ? [p.tradeId] : [])))) {
    const history = await historyOf(client, tradeId, input.startedAt, runs);
    const notes = byId.get(tradeId)?.notes.join('; ');
    const log = logOf(world, tradeId);
    for (const p of problems) {
      if (p.tradeId !== tradeId) continue;
      p.history = history;
      if (notes) p.taker = notes;
      if (log) p.log = log;
    }
  }
  return { problems, endings, trades: ids.length, unregistered: ids.length - records.length };
}

/** What the instances logged about the trade (warnings and worse): each distinct message once, counted. */
function logOf(world: World, tradeId: string): string {
  const counts = new Map<string, number>();
  for (const instance of world.instances) {
    let text = '';
    try {
      text = readFileSync(instance.logFile, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (!line.includes(tradeId)) continue;
      try {
        const entry = JSON.parse(line) as { msg?: string; err?: string; effect?: string; level?: number };
        if ((entry.level ?? 0) < 40) continue;
        const message =
          `${entry.effect ? `${entry.effect}: ` : ''}${entry.msg ?? ''}${entry.err ? ` (${entry.err})` : ''}`
            .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'the rpc')
            .slice(0, 240);
        counts.set(message, (counts.get(message) ?? 0) + 1);
      } catch {
        // not a JSON line
      }
    }
  }
  return [...counts].map(([m, n]) => (n > 1 ? `${m} ×${n}` : m)).join('; ');
}

/** `TYPE→substate +Ns run#k`, each run numbered in the order the campaign first met it. */
async function historyOf(
  client: ServiceClient,
  tradeId: string,
  startedAt: number,
  runs: Map<string, number>,
): Promise<string> {
  try {
    const answer = await client.call('GET', `/v1/trades/${tradeId}/events`, undefined, { patienceMs: 5_000 });
    if (answer.status !== 200) return `events: ${answer.status} ${answer.json?.error?.code ?? ''}`;
    return (answer.json.events as Json[])
      .map((e) => {
        if (!runs.has(e.run_id)) runs.set(e.run_id, runs.size + 1);
        const at = Math.round((Date.parse(e.at) - startedAt) / 1000);
        return `${e.type}→${e.substate} ${at >= 0 ? '+' : ''}${at}s run#${runs.get(e.run_id)}`;
      })
      .join(', ');
  } catch (error) {
    return `events: ${(error as Error).message}`;
  }
}

/** The maker's token balances equal genesis plus the ledger's maker movements; its lamports, minus its fees. */
function checkMakerHoldings(
  world: World,
  entries: Json[],
  makerEscrows: string[],
  problems: Problem[],
): void {
  const net = new Map<string, bigint>();
  let fees = 0n;
  for (const e of entries) {
    if (e.account !== 'maker') continue;
    const signed = e.side === 'debit' ? BigInt(e.amount_raw) : -BigInt(e.amount_raw);
    if (e.movement === 'network_fee') fees -= signed;
    else net.set(e.mint, (net.get(e.mint) ?? 0n) + signed);
  }
  for (const asset of world.config.assets.list) {
    const start = world.genesis.tokens.get(asset.mint) ?? 0n;
    const expected = start + (net.get(asset.mint) ?? 0n);
    const actual = world.chain.ledger.tokenAmount(world.maker, new PublicKey(asset.mint));
    if (actual !== expected) {
      problems.push({
        check: 'maker_balance_mismatch',
        tradeId: null,
        kind: null,
        detail: `${asset.symbol}: the maker holds ${actual} raw on chain; genesis ${start} + the ledger's movements ${net.get(asset.mint) ?? 0n} = ${expected} (off by ${actual - expected})`,
        chain: `${actual}`,
        service: `${expected}`,
      });
    }
  }
  // Rent the maker put into escrows it has not closed (yet) is the maker's too, parked.
  let rent = 0n;
  let open = 0;
  for (const address of makerEscrows) {
    const escrow = world.chain.ledger.getAccount(address);
    if (!escrow) continue;
    const [vault] = vaultAddress(DEFAULT_HTLC_PROGRAM_ID, new PublicKey(address));
    const account = world.chain.ledger.getAccount(vault);
    // A wrapped-SOL vault's lamports are its rent plus the SOL it holds: only the rent is parked lamports.
    const held = account ? readTokenAccount(account.data) : null;
    const wrapped = held?.mint.equals(NATIVE_MINT) ? held.amount : 0n;
    rent += escrow.lamports + (account ? account.lamports - wrapped : 0n);
    open++;
  }
  const lamports = world.chain.ledger.balance(world.maker);
  const expectedLamports = world.genesis.lamports - fees - rent;
  if (lamports !== expectedLamports) {
    const ledgered = new Set(
      entries.filter((e) => e.movement === 'network_fee').map((e) => e.signature as string),
    );
    const moved = new Set(
      entries.filter((e) => e.movement !== 'network_fee').map((e) => e.signature as string),
    );
    const paid = makerFeesOnChain(world);
    const missing = paid.transactions.filter((t) => !ledgered.has(t.signature));
    const byWhat = new Map<string, { n: number; lamports: bigint }>();
    for (const t of missing) {
      // A movement the ledger has, without the fee its transaction cost; or a transaction it has nothing of.
      const what = `${t.what} ${moved.has(t.signature) ? '(movement ledgered, fee not)' : '(not in the ledger)'}`;
      const entry = byWhat.get(what) ?? { n: 0, lamports: 0n };
      entry.n++;
      entry.lamports += t.fee;
      byWhat.set(what, entry);
    }
    problems.push({
      check: 'maker_balance_mismatch',
      tradeId: null,
      kind: null,
      detail: `lamports: the maker holds ${lamports} on chain; genesis ${world.genesis.lamports} − the ledger's fees ${fees} − ${rent} rent in its ${open} unclosed escrow(s) = ${expectedLamports} (off by ${lamports - expectedLamports}). The chain charged the maker ${paid.fees} in fees over ${paid.transactions.length} transactions; those without a fee in the ledger: ${
        [...byWhat].map(([what, { n, lamports: l }]) => `${what} ×${n} (${l} lamports)`).join(', ') || 'none'
      }`,
      chain: `${lamports}; unledgered fees e.g. ${missing
        .slice(0, 3)
        .map((t) => t.signature)
        .join(', ')}`,
      service: `${expectedLamports}`,
    });
  }
}

/** Transactions the maker paid for (its first key), failed ones included: each fee and what it did. */
function makerFeesOnChain(world: World): {
  fees: bigint;
  transactions: { signature: string; fee: bigint; what: string }[];
} {
  const maker = world.maker.toBase58();
  let fees = 0n;
  const transactions: { signature: string; fee: bigint; what: string }[] = [];
  let before: string | undefined;
  for (;;) {
    const page = world.chain.ledger.transactionsForAddress(maker, 1_000, before);
    for (const tx of page) {
      if (tx.accountKeys[0] !== maker) continue;
      fees += tx.fee;
      const actions = Transaction.from(Buffer.from(tx.bytes))
        .instructions.filter((ix) => ix.programId.equals(DEFAULT_HTLC_PROGRAM_ID))
        .map((ix) => ACTIONS[ix.data[0] ?? -1] ?? 'other');
      const what = `${actions.join('+') || 'no htlc instruction'}${tx.err === null ? '' : ' (failed)'}`;
      transactions.push({ signature: tx.signature, fee: tx.fee, what });
    }
    if (page.length < 1_000) break;
    before = page.at(-1)?.signature;
  }
  return { fees, transactions };
}
