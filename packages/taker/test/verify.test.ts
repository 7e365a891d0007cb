// Each check before reveal, attacked one field at a time on an escrow built byte by byte from the documented
// layout: a lock with the agreed terms passes them all; any one term changed fails exactly the check for it.
import { getAddressEncoder, address as toAddress } from '@solana/kit';
import { describe, expect, test } from 'vitest';
import { USDC_MINT, USDT_MINT } from '../../../test/support/mints.ts';
import { TOKEN_PROGRAM_ID } from '../src/htlc.ts';
import {
  CHECK_NAMES,
  type ChainRead,
  checkMakerLock,
  DEFAULT_HTLC_PROGRAM_ID,
  type LockTerms,
  makerEscrowAddress,
  type Trade,
  takerEscrowAddress,
  vaultAddress,
} from '../src/index.ts';

const TAKER = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const MAKER = 'GokivDYuQXPZCWRkwMhdH2h91KpDQXBEmpgBgs55bnpH';
const OTHER = '7dGbd2QZcCKcTndnHcTL8q7SMVXAkp688NTQYwrRCrar';
const NOW = 1_800_000_000n;
const key = (a: string) => getAddressEncoder().encode(toAddress(a));

async function fixture() {
  const hashlock = new Uint8Array(32).fill(7);
  const takerEscrow = await takerEscrowAddress(DEFAULT_HTLC_PROGRAM_ID, TAKER, hashlock);
  const makerEscrow = await makerEscrowAddress(DEFAULT_HTLC_PROGRAM_ID, takerEscrow);
  const vault = await vaultAddress(DEFAULT_HTLC_PROGRAM_ID, makerEscrow);
  const terms: LockTerms = {
    programId: DEFAULT_HTLC_PROGRAM_ID,
    taker: TAKER,
    maker: MAKER,
    outputMint: USDT_MINT,
    minAmount: 1_000n,
    hashlock,
    takerEscrow,
    makerEscrow,
    vault,
    marginSeconds: 30,
  };
  const escrow = new Uint8Array(264);
  const view = new DataView(escrow.buffer);
  escrow.set([1, 2, 1], 0); // version, kind maker, status locked
  escrow.set(key(MAKER), 8);
  escrow.set(key(TAKER), 40);
  escrow.set(key(USDT_MINT), 72);
  escrow.set(key(vault), 104);
  escrow.set(hashlock, 136);
  view.setBigUint64(168, 1_000n, true);
  view.setBigInt64(176, NOW + 60n, true);
  escrow.set(key(takerEscrow), 232);
  const token = new Uint8Array(165);
  token.set(key(USDT_MINT), 0);
  token.set(key(makerEscrow), 32);
  new DataView(token.buffer).setBigUint64(64, 1_000n, true);
  token[108] = 1; // initialized
  const clock = new Uint8Array(40);
  new DataView(clock.buffer).setBigInt64(32, NOW, true);
  const read = (
    e = escrow,
    t = token,
    owner = DEFAULT_HTLC_PROGRAM_ID,
    tokenOwner = TOKEN_PROGRAM_ID,
  ): ChainRead => ({
    accounts: [
      { address: makerEscrow, owner, lamports: 1n, data: e },
      { address: vault, owner: tokenOwner, lamports: 1n, data: t },
    ],
    clock: { slot: 1n, unixTimestamp: NOW },
  });
  const trade = {
    program_id: DEFAULT_HTLC_PROGRAM_ID,
    taker_escrow: takerEscrow,
    maker_escrow: makerEscrow,
  } as unknown as Trade;
  return { terms, escrow, token, read, trade };
}

const failing = (checks: { name: string; ok: boolean }[]) => checks.filter((c) => !c.ok).map((c) => c.name);

/** The escrow bytes with one field overwritten. */
const patched = (bytes: Uint8Array, offset: number, value: Uint8Array | number[]) => {
  const copy = bytes.slice();
  copy.set(value, offset);
  return copy;
};
const i64 = (v: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigInt64(0, v, true);
  return b;
};

describe('the checks before reveal', () => {
  test('a lock with the agreed terms passes every check', async () => {
    const { terms, read, trade } = await fixture();
    const result = checkMakerLock(terms, read(), trade);
    expect(result.checks.map((c) => c.name)).toEqual([...CHECK_NAMES]);
    expect(failing(result.checks)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  test.each([
    ['maker_escrow_kind', 1, [1]],
    ['maker_escrow_status', 2, [2]],
    ['initializer', 8, [...key(OTHER)]],
    ['recipient', 40, [...key(OTHER)]],
    ['mint', 72, [...key(USDC_MINT)]],
    ['vault_address', 104, [...key(OTHER)]],
    ['hashlock', 136, new Array(32).fill(8)],
    ['amount', 168, [...i64(999n)]],
    ['expiry_margin', 176, [...i64(NOW + 29n)]],
    ['maker_escrow_taker_escrow', 232, [...key(OTHER)]],
  ] as const)('%s fails alone when its field is off', async (name, offset, value) => {
    const { terms, escrow, read, trade } = await fixture();
    const result = checkMakerLock(terms, read(patched(escrow, offset, [...value])), trade);
    // A maker escrow turned taker escrow also loses its taker-escrow link, which is read only for makers; an
    // escrow of another mint no longer matches its vault's.
    const expected: Record<string, string[]> = {
      maker_escrow_kind: ['maker_escrow_kind', 'maker_escrow_taker_escrow'],
      mint: ['mint', 'vault_mint'],
    };
    expect(failing(result.checks)).toEqual(expected[name] ?? [name]);
    expect(result.ok).toBe(false);
  });

  test('the expiry margin holds at exactly the margin, and fails a second short of it', async () => {
    const { terms, escrow, read, trade } = await fixture();
    expect(checkMakerLock(terms, read(patched(escrow, 176, [...i64(NOW + 30n)])), trade).ok).toBe(true);
    expect(
      failing(checkMakerLock(terms, read(patched(escrow, 176, [...i64(NOW + 29n)])), trade).checks),
    ).toEqual(['expiry_margin']);
  });

  test('more than the quoted amount is fine; without a configured maker any initializer is', async () => {
    const { terms, escrow, token, read, trade } = await fixture();
    const more = patched(escrow, 168, [...i64(5_000n)]);
    const bigger = patched(token, 64, [...i64(5_000n)]);
    expect(checkMakerLock(terms, read(more, bigger), trade).ok).toBe(true);
    const anyMaker = { ...terms, maker: null };
    expect(checkMakerLock(anyMaker, read(patched(escrow, 8, [...key(OTHER)])), trade).ok).toBe(true);
  });

  test('no escrow, another owner, or bytes of another layout: nothing further is read', async () => {
    const { terms, escrow, read, trade } = await fixture();
    const none = checkMakerLock(terms, { ...read(), accounts: [null, null] }, trade);
    expect(failing(none.checks)).toEqual(['maker_escrow_exists']);
    expect(failing(checkMakerLock(terms, read(escrow, undefined, TOKEN_PROGRAM_ID), trade).checks)).toEqual([
      'maker_escrow_owner',
    ]);
    expect(failing(checkMakerLock(terms, read(escrow.slice(0, 200)), trade).checks)).toEqual([
      'maker_escrow_layout',
    ]);
    expect(failing(checkMakerLock(terms, read(patched(escrow, 0, [2])), trade).checks)).toEqual([
      'maker_escrow_layout',
    ]);
  });

  test('the vault: absent, not a token account, another mint or authority, frozen, or short of the amount', async () => {
    const { terms, escrow, token, read, trade } = await fixture();
    const vaultFails = (t: Uint8Array<ArrayBuffer>, owner = TOKEN_PROGRAM_ID) =>
      failing(checkMakerLock(terms, read(escrow, t, undefined, owner), trade).checks);
    expect(
      failing(
        checkMakerLock(terms, { ...read(), accounts: [read().accounts[0] ?? null, null] }, trade).checks,
      ),
    ).toEqual(['vault_exists']);
    expect(vaultFails(token, DEFAULT_HTLC_PROGRAM_ID)).toEqual(['vault_token_account']);
    expect(vaultFails(patched(token, 0, [...key(USDC_MINT)]))).toEqual(['vault_mint']);
    expect(vaultFails(patched(token, 32, [...key(OTHER)]))).toEqual(['vault_authority']);
    expect(vaultFails(patched(token, 108, [2]))).toEqual(['vault_not_frozen']);
    expect(vaultFails(patched(token, 64, [...i64(999n)]))).toEqual(['vault_balance']);
  });

  test('a service that names another program or other escrows than the derived ones is refused', async () => {
    const { terms, read, trade } = await fixture();
    const other = { ...trade, program_id: OTHER } as Trade;
    expect(failing(checkMakerLock(terms, read(), other).checks)).toEqual(['service_program_id']);
    const moved = { ...trade, maker_escrow: OTHER } as Trade;
    expect(failing(checkMakerLock(terms, read(), moved).checks)).toEqual(['service_addresses']);
  });
});
