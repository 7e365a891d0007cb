// Verify before reveal. Handing over the preimage is what lets the maker take the taker's input, so the
// client reveals it only once the maker's lock is on chain, read through the taker's own RPC, with terms the
// taker can live with: every check below must pass. The addresses are derived here from the taker's own
// key and secret and the client's own program id — never taken from the service — and the chain's time is
// its Clock sysvar, read in the same call as the escrow.
import type { Trade } from './api.ts';
import { sameBytes, toHex } from './bytes.ts';
import {
  decodeEscrow,
  decodeTokenAccount,
  type Escrow,
  TOKEN_PROGRAM_ID,
  type TokenAccount,
} from './htlc.ts';
import type { ChainRead } from './rpc.ts';
import type { Check, CheckName, Verification } from './verification.ts';

export { CHECK_NAMES, type Check, type CheckName, type Verification } from './verification.ts';

/** What the taker agreed to and expects to find locked for it. */
export interface LockTerms {
  programId: string;
  taker: string;
  /** The maker's key, when the front end knows it: then the lock must be the maker's own. */
  maker: string | null;
  /** The quoted output's mint and raw amount: the lock must hold at least that of that mint. */
  outputMint: string;
  minAmount: bigint;
  /** sha256 of the taker's own preimage. */
  hashlock: Uint8Array;
  /** The addresses derived by the client: taker escrow = PDA ["taker", taker, hashlock], … */
  takerEscrow: string;
  makerEscrow: string;
  vault: string;
  /** The least time (chain seconds) the maker escrow must still have before its expiry. */
  marginSeconds: number;
}

/** The maker's lock as the chain shows it (`read`: the maker escrow, then its vault, plus the clock). */
export function checkMakerLock(terms: LockTerms, read: ChainRead, trade: Trade | null): Verification {
  const checks: Check[] = [];
  const check = (name: CheckName, ok: boolean, detail: string) => {
    checks.push({ name, ok, detail });
    return ok;
  };
  const done = (escrow: Escrow | null): Verification => ({
    ok: checks.every((c) => c.ok),
    checks,
    chainTime: read.clock.unixTimestamp,
    escrow,
  });
  const [account, vaultAccount] = read.accounts;
  const now = read.clock.unixTimestamp;

  // The service's word, compared: a service that names another program or other escrows than the ones this
  // taker derives is not talking about the lock this client would redeem.
  if (trade) {
    const programId = (trade as { program_id?: string }).program_id;
    check(
      'service_program_id',
      programId === undefined || programId === terms.programId,
      `the service names program ${programId ?? '(none)'}, this client uses ${terms.programId}`,
    );
    const named = trade as { taker_escrow?: string; maker_escrow?: string };
    check(
      'service_addresses',
      (named.taker_escrow === undefined || named.taker_escrow === terms.takerEscrow) &&
        (named.maker_escrow === undefined || named.maker_escrow === terms.makerEscrow),
      `the service names escrows ${named.taker_escrow ?? '—'} / ${named.maker_escrow ?? '—'}; derived ${terms.takerEscrow} / ${terms.makerEscrow}`,
    );
  }

  if (
    !check(
      'maker_escrow_exists',
      account != null,
      `maker escrow ${terms.makerEscrow} ${account ? 'exists' : 'does not exist'}`,
    )
  )
    return done(null);
  if (!account) return done(null);
  if (!check('maker_escrow_owner', account.owner === terms.programId, `owned by ${account.owner}`))
    return done(null);
  let escrow: Escrow;
  try {
    escrow = decodeEscrow(account.data);
    check('maker_escrow_layout', true, `an HTLC escrow, version ${escrow.version}`);
  } catch (error) {
    check('maker_escrow_layout', false, (error as Error).message);
    return done(null);
  }
  check('maker_escrow_kind', escrow.kind === 'maker', `a ${escrow.kind} escrow`);
  check(
    'maker_escrow_taker_escrow',
    escrow.takerEscrow === terms.takerEscrow,
    `locked against ${escrow.takerEscrow ?? '(no taker escrow)'}, the taker escrow is ${terms.takerEscrow}`,
  );
  check('maker_escrow_status', escrow.status === 'locked', `status ${escrow.status}`);
  check(
    'recipient',
    escrow.recipient === terms.taker,
    `pays ${escrow.recipient}, the taker is ${terms.taker}`,
  );
  check(
    'initializer',
    terms.maker === null || escrow.initializer === terms.maker,
    terms.maker === null
      ? `locked by ${escrow.initializer} (no maker key configured to compare)`
      : `locked by ${escrow.initializer}, the maker is ${terms.maker}`,
  );
  check('mint', escrow.mint === terms.outputMint, `mint ${escrow.mint}, quoted ${terms.outputMint}`);
  check('amount', escrow.amount >= terms.minAmount, `${escrow.amount} locked, ${terms.minAmount} quoted`);
  check(
    'hashlock',
    sameBytes(escrow.hashlock, terms.hashlock),
    `hashlock ${toHex(escrow.hashlock)}, the secret's hash is ${toHex(terms.hashlock)}`,
  );
  const left = escrow.expiry - now;
  check(
    'expiry_margin',
    left >= BigInt(terms.marginSeconds),
    `expires at ${escrow.expiry}, ${left} s after chain time ${now}; ${terms.marginSeconds} s needed`,
  );

  // The vault: the program's own token account holding the amount, which a redeem moves.
  check('vault_address', escrow.vault === terms.vault, `vault ${escrow.vault}, derived ${terms.vault}`);
  if (
    !check(
      'vault_exists',
      vaultAccount != null,
      `vault ${terms.vault} ${vaultAccount ? 'exists' : 'does not exist'}`,
    )
  )
    return done(escrow);
  let vault: TokenAccount | null = null;
  try {
    if (vaultAccount?.owner === TOKEN_PROGRAM_ID) vault = decodeTokenAccount(vaultAccount.data);
  } catch {
    vault = null;
  }
  if (!check('vault_token_account', vault !== null, `owned by ${vaultAccount?.owner}`) || !vault)
    return done(escrow);
  check('vault_mint', vault.mint === escrow.mint, `vault mint ${vault.mint}`);
  check('vault_authority', vault.owner === terms.makerEscrow, `vault authority ${vault.owner}`);
  check('vault_not_frozen', vault.state === 'initialized', `vault ${vault.state}`);
  check(
    'vault_balance',
    vault.amount >= escrow.amount,
    `vault holds ${vault.amount}, the escrow ${escrow.amount}`,
  );
  return done(escrow);
}
