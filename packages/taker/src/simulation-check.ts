// What the lock does, not only what it says: the lock is simulated on the taker's own RPC with the wallet
// and every account the transaction may write watched, and the changes are held to the agreement here —
// the taker loses exactly the quoted input (plus the fee and the escrow's rent within the bounds) and
// nothing else: no other balance moves, no token account of the wallet's is closed, delegated or handed to
// another authority, and the wallet stays a plain account. A pure function of the before and after states.
import { getAddressDecoder } from '@solana/kit';
import { sameBytes } from './bytes.ts';
import { NATIVE_MINT, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from './htlc.ts';
import { ESCROW_RENT_LAMPORTS, type LockAgreement, TOKEN_2022_PROGRAM_ID } from './lock-check.ts';

/** An account as an RPC answers it; a closed account (no lamports) is absent (null). */
export interface AccountState {
  owner: string;
  lamports: bigint;
  data: Uint8Array;
}

export interface LockSimulation {
  /** The simulation's error (the RPC's `err`), null when the transaction ran through. */
  err: unknown;
  logs: string[];
  unitsConsumed: bigint | null;
  /** The transaction's base fee (5,000 lamports a signature) and priority fee, from its decoded bytes. */
  baseFeeLamports: bigint;
  priorityFeeLamports: bigint;
  /** Every watched account: before (read at the simulation's slot or earlier) and after the simulation. */
  accounts: { address: string; before: AccountState | null; after: AccountState | null }[];
}

export const SIMULATION_CHECK_NAMES = [
  'simulation_ran',
  'input_debited',
  'other_tokens_unchanged',
  'token_accounts_intact',
  'wallet_intact',
  'sol_spent',
] as const;

export type SimulationCheckName = (typeof SIMULATION_CHECK_NAMES)[number];

export interface SimulationCheckResult {
  name: SimulationCheckName;
  ok: boolean;
  detail: string;
}

/** One balance of the taker's as the simulation moved it (raw units of the mint; lamports for SOL). */
export interface BalanceChange {
  address: string;
  /** The mint for a token account; null for the wallet's lamports. */
  mint: string | null;
  before: bigint;
  after: bigint;
}

export interface SimulationCheck {
  ok: boolean;
  checks: SimulationCheckResult[];
  /** Every balance of the taker's that the simulation changed. */
  changes: BalanceChange[];
}

interface TokenView {
  mint: string;
  authority: string;
  amount: bigint;
  raw: Uint8Array;
}

const isTokenProgram = (owner: string) => owner === TOKEN_PROGRAM_ID || owner === TOKEN_2022_PROGRAM_ID;

function tokenView(state: AccountState | null): TokenView | null {
  if (!state || state.lamports === 0n || !isTokenProgram(state.owner) || state.data.length < 165) return null;
  const address = getAddressDecoder();
  return {
    mint: address.decode(state.data.subarray(0, 32)),
    authority: address.decode(state.data.subarray(32, 64)),
    amount: new DataView(state.data.buffer, state.data.byteOffset).getBigUint64(64, true),
    raw: state.data,
  };
}

/** The fields an owner's control of a token account lives in: owner, delegate, state, delegated amount, close authority. */
const CONTROL = [
  [32, 64, 'owner'],
  [72, 108, 'delegate'],
  [108, 109, 'state'],
  [121, 129, 'delegated amount'],
  [129, 165, 'close authority'],
] as const;

const live = (state: AccountState | null) => (state && state.lamports > 0n ? state : null);

/**
 * The simulated lock held to the agreement. The taker's token accounts are the watched ones its wallet
 * owns (before or after) or that are its own input and output accounts; its SOL is the wallet's lamports plus
 * those accounts' (a wrapped-SOL account holds its tokens as lamports).
 */
export function checkLockSimulation(agreement: LockAgreement, simulation: LockSimulation): SimulationCheck {
  const checks: SimulationCheckResult[] = [];
  const check = (name: SimulationCheckName, ok: boolean, detail: string) => checks.push({ name, ok, detail });
  const changes: BalanceChange[] = [];
  const wallet = agreement.taker;
  const native = agreement.inputMint === NATIVE_MINT;

  check(
    'simulation_ran',
    simulation.err === null || simulation.err === undefined,
    simulation.err == null
      ? `ran through (${simulation.unitsConsumed ?? '?'} compute units)`
      : `failed: ${JSON.stringify(simulation.err, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`,
  );

  let solBefore = 0n;
  let solAfter = 0n;
  const tokenDelta = new Map<string, bigint>();
  const controlProblems: string[] = [];
  const walletProblems: string[] = [];
  let walletSeen = false;

  for (const { address, before: b, after: a } of simulation.accounts) {
    const before = live(b);
    const after = live(a);
    if (address === wallet) {
      walletSeen = true;
      solBefore += before?.lamports ?? 0n;
      solAfter += after?.lamports ?? 0n;
      if ((before?.lamports ?? 0n) !== (after?.lamports ?? 0n))
        changes.push({ address, mint: null, before: before?.lamports ?? 0n, after: after?.lamports ?? 0n });
      if (!after) walletProblems.push('the wallet account is gone');
      else if (after.owner !== SYSTEM_PROGRAM_ID || after.data.length !== 0)
        walletProblems.push(
          `the wallet is left owned by ${after.owner} with ${after.data.length} data bytes`,
        );
      continue;
    }
    const tb = tokenView(before);
    const ta = tokenView(after);
    const own =
      tb?.authority === wallet ||
      ta?.authority === wallet ||
      address === agreement.inputTokenAccount ||
      address === agreement.outputTokenAccount;
    if (!own) continue;
    solBefore += before?.lamports ?? 0n;
    solAfter += after?.lamports ?? 0n;
    const mint = tb?.mint ?? ta?.mint ?? '(not a token account)';
    const amountBefore = tb?.amount ?? 0n;
    const amountAfter = ta?.amount ?? 0n;
    if (amountBefore !== amountAfter) {
      changes.push({ address, mint, before: amountBefore, after: amountAfter });
      tokenDelta.set(mint, (tokenDelta.get(mint) ?? 0n) + amountAfter - amountBefore);
    }
    if (tb && !ta) controlProblems.push(`${address} (${mint}) is closed`);
    else if (tb && ta) {
      for (const [from, to, field] of CONTROL)
        if (!sameBytes(tb.raw.subarray(from, to), ta.raw.subarray(from, to)))
          controlProblems.push(`${address} (${mint}): its ${field} changed`);
    } else if (ta && (ta.authority !== wallet || ta.raw.subarray(72, 76).some((b) => b !== 0)))
      controlProblems.push(`${address} (${mint}) is created for ${ta.authority} or with a delegate`);
  }

  if (!walletSeen) walletProblems.push('the wallet was not among the simulated accounts');
  check(
    'wallet_intact',
    walletProblems.length === 0,
    walletProblems.join('; ') || 'the wallet stays a plain account',
  );

  const inputDelta = tokenDelta.get(agreement.inputMint) ?? 0n;
  if (native)
    check(
      'input_debited',
      inputDelta === 0n || inputDelta === -agreement.amountRaw,
      `wrapped SOL in the wallet's token accounts moves by ${inputDelta}; the SOL lock is counted in lamports`,
    );
  else
    check(
      'input_debited',
      inputDelta === -agreement.amountRaw,
      `the wallet's ${agreement.inputMint} moves by ${inputDelta}, the quote's input is ${agreement.amountRaw}`,
    );
  const others = [...tokenDelta].filter(([mint, delta]) => mint !== agreement.inputMint && delta !== 0n);
  check(
    'other_tokens_unchanged',
    others.length === 0,
    others.length === 0
      ? 'no other token balance of the wallet’s moves'
      : others.map(([mint, delta]) => `${mint} moves by ${delta}`).join('; '),
  );
  check(
    'token_accounts_intact',
    controlProblems.length === 0,
    controlProblems.join('; ') || 'no token account of the wallet’s is closed, delegated or re-assigned',
  );

  // The wallet's SOL (its lamports and its token accounts'): at most the fee the transaction bids (decoded from
  // it, already held to its bound) and the escrow's rent, plus the input when the input is SOL — at least the
  // input then, else the escrow would not hold it.
  const spent = solBefore - solAfter;
  const bound = simulation.baseFeeLamports + simulation.priorityFeeLamports + ESCROW_RENT_LAMPORTS;
  const least = native ? agreement.amountRaw : 0n;
  const most = least + bound;
  check(
    'sol_spent',
    spent >= least && spent <= most,
    `the wallet spends ${spent} lamports; ${least} to ${most} accepted (${native ? 'the input, ' : ''}the fee within its bound and the escrow’s rent)`,
  );
  return { ok: checks.every((c) => c.ok), checks, changes };
}
