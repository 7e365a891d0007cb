// The lock under review: what the wallet will be asked to sign, decoded by the taker client from the
// transaction's own bytes (never from the service's JSON), checked and simulated, and shown before the wallet
// opens — or, when the lock is not what the taker agreed to, each failed check in words, and the wallet is
// never asked. Says whom the page trusts for the maker's key and the mints.
import {
  LockRefusedError,
  type LockReview,
  type LockSummary,
  type ReviewCheck,
  type SimulationCheckName,
  type Substate,
  type SwapRecord,
  type TransactionCheckName,
} from '@rfq-maker/taker';
import { formatDecimal } from '../../money/amounts.ts';
import { client, rpcUrl, state } from './context.ts';
import { $, show, time } from './dom.ts';

/** Each check in plain words: what it is about (its detail says what was found). */
const CHECK_WORDS: Record<TransactionCheckName | SimulationCheckName, string> = {
  decodes: 'The transaction itself',
  fee_payer: 'Who pays the network fee',
  lookup_tables: 'Accounts hidden in a lookup table',
  known_programs: 'The programs it calls',
  compute_budget: 'Its compute budget',
  priority_fee: 'Its priority fee',
  token_accounts: 'The token accounts it creates',
  wrap: 'Wrapping your SOL',
  no_transfer: 'A transfer out of your wallet',
  no_delegate: 'A right to spend your tokens (approve or delegate)',
  no_set_authority: 'A change of who controls your token accounts',
  no_close: 'Closing one of your accounts',
  htlc_program: 'The escrow program',
  instruction_layout: 'The lock instruction',
  escrow_accounts: 'The escrow’s addresses',
  amount: 'The amount locked',
  mint: 'The token locked',
  hashlock: 'The secret the escrow waits for',
  counterparty: 'Who may redeem it (the maker)',
  taker: 'Whose funds are locked',
  refund_destination: 'Where a refund goes',
  expiry: 'How long your funds stay locked',
  payout_account: 'Where the payout goes',
  preimage: 'The secret it reveals',
  simulation_ran: 'The simulation',
  input_debited: 'What leaves your wallet (simulated)',
  other_tokens_unchanged: 'Your other tokens (simulated)',
  token_accounts_intact: 'Control of your token accounts (simulated)',
  wallet_intact: 'Your wallet account (simulated)',
  sol_spent: 'The SOL it spends (simulated)',
};

const SOL_DECIMALS = 9;
/** The substate in which a lock waits for its signature (typed: a name the API does not publish fails). */
const AWAITING_LOCK: Substate = 'pending.awaitingLock';

/** A raw amount as a person reads it: exact, without trailing zeros (20 USDC, 4.97 USDT). */
export function units(raw: bigint, decimals: number): string {
  const text = formatDecimal(raw, decimals);
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

/** The review running for each swap: the next one waits for it (it may have settled a fresh lock already). */
const reviewing = new Map<string, Promise<unknown>>();

/**
 * Reviews the swap's lock (client.reviewLock: settled again if stale, decoded, checked, simulated) and shows
 * the outcome. Answers the review, or null when it was refused — then nothing may be signed. Any other
 * failure (the service or the RPC unreachable) is thrown for the caller to show.
 */
export async function reviewLock(record: SwapRecord): Promise<LockReview | null> {
  const before = reviewing.get(record.secretHash);
  const run = (async () => {
    await before?.catch(() => {});
    return review(record);
  })();
  reviewing.set(record.secretHash, run);
  try {
    return await run;
  } finally {
    if (reviewing.get(record.secretHash) === run) reviewing.delete(record.secretHash);
  }
}

async function review(record: SwapRecord): Promise<LockReview | null> {
  try {
    const review = await client.reviewLock(record);
    state.review = { secretHash: record.secretHash, outcome: 'passed', review };
    return review;
  } catch (error) {
    if (!(error instanceof LockRefusedError)) throw error;
    state.review = { secretHash: record.secretHash, outcome: 'refused', checks: error.checks };
    return null;
  } finally {
    renderReview(record);
  }
}

/** Whether the swap's last review refused its lock: the page then offers no signing. */
export const lockRefused = (record: SwapRecord) =>
  state.review?.secretHash === record.secretHash && state.review.outcome === 'refused';

/** The review of the active swap while its lock waits to be signed; nothing otherwise. */
export function renderReview(record: SwapRecord): void {
  const current = state.review?.secretHash === record.secretHash ? state.review : null;
  const awaiting = record.substate === AWAITING_LOCK;
  show($('lock-review'), awaiting && current?.outcome === 'passed');
  show($('lock-refused'), awaiting && current?.outcome === 'refused');
  if (!awaiting || !current) return;
  if (current.outcome === 'refused') renderRefusal(current.checks);
  else renderSummary(current.review);
}

function renderRefusal(checks: readonly ReviewCheck[]): void {
  $('refused-checks').replaceChildren(
    ...checks.map((check) => {
      const li = document.createElement('li');
      li.dataset.check = check.name;
      li.textContent = `${CHECK_WORDS[check.name]}: ${check.detail}`;
      return li;
    }),
  );
}

function renderSummary(review: LockReview): void {
  const { summary } = review;
  const section = $('lock-review');
  section.dataset.trust = summary.trust;
  $('lock-sentence').replaceChildren(...lockSentence(summary));
  const fee = summary.baseFeeLamports + summary.priorityFeeLamports;
  $('lock-fee').textContent = `${units(fee, SOL_DECIMALS)} SOL${
    summary.priorityFeeLamports > 0n
      ? ` (of which a priority fee of ${units(summary.priorityFeeLamports, SOL_DECIMALS)} SOL)`
      : ''
  }`;
  $('lock-changes').replaceChildren(
    ...review.simulation.changes.map((change) => {
      const li = document.createElement('li');
      li.dataset.mint = change.mint ?? 'SOL';
      li.textContent = balanceChange(summary, change);
      return li;
    }),
  );
  $('lock-trust').textContent = trustWords(summary);
  $('lock-checked').textContent =
    `This browser read the lock from the transaction itself and checked it (${review.check.checks.length} checks of what it says, ${review.simulation.checks.length} of what it does, simulated through ${new URL(rpcUrl).host}): every one passed.`;
}

/** "You lock 20 USDC (mint …) until 14:32 for 4.97 USDT (mint …) from maker …", each value marked for reading. */
function lockSentence(summary: LockSummary): (Node | string)[] {
  const value = (tag: 'strong' | 'code' | 'time', field: string, text: string) => {
    const element = document.createElement(tag);
    element.dataset.field = field;
    element.textContent = text;
    return element;
  };
  const until = value('time', 'expiry', time(new Date(Number(summary.expiry) * 1000).toISOString()));
  until.setAttribute('datetime', new Date(Number(summary.expiry) * 1000).toISOString());
  const { input, output } = summary;
  return [
    'You lock ',
    value('strong', 'input', `${units(input.amountRaw, input.decimals)} ${input.asset}`),
    ' (mint ',
    value('code', 'input-mint', input.mint),
    ') until ',
    until,
    ' for ',
    value('strong', 'output', `${units(output.amountRaw, output.decimals)} ${output.asset}`),
    ' (mint ',
    value('code', 'output-mint', output.mint),
    ') from maker ',
    value('code', 'maker', summary.maker),
    '. Until then only the maker can take it, and only with your secret; after it, you can refund it.',
  ];
}

/** One balance the simulation moved, in the asset's units where the page knows them. */
function balanceChange(summary: LockSummary, change: { mint: string | null; before: bigint; after: bigint }) {
  const delta = change.after - change.before;
  const sign = delta < 0n ? '−' : '+';
  const size = delta < 0n ? -delta : delta;
  const asset =
    change.mint === null
      ? { asset: 'SOL', decimals: SOL_DECIMALS }
      : [summary.input, summary.output].find((side) => side.mint === change.mint);
  if (!asset) return `${sign}${size} raw units of mint ${change.mint}`;
  const note = change.mint === null ? ' (with the network fee and the rent of new accounts)' : '';
  return `${sign}${units(size, asset.decimals)} ${asset.asset}${note}`;
}

function trustWords(summary: LockSummary): string {
  return summary.trust === 'embedded-service'
    ? 'Trust: this page runs on the service’s own chain (its RPC has the service’s genesis hash), so it trusts the service’s own chain for the maker key and the mints. Everything else in the lock is checked here against what you agreed to.'
    : 'Trust: the maker key and the mints are pinned by this page’s own configuration (and the built-in list of mainnet and devnet mints), not taken from the service’s answers; the lock is held to them.';
}
