/*
 * Constant-product pool program: the embedded venue the RFQ maker hedges and sources through
 * (docs/venue-and-aggregator.md). One pool per (admin, mint pair); its two vaults are SPL token
 * accounts owned by the pool PDA, and their balances are the reserves. The admin alone deposits and
 * withdraws liquidity (no LP shares: a dev venue has one liquidity provider); anyone swaps, exact in,
 * with the minimum out enforced here:
 *
 *   amount_in_after_fee = floor(amount_in × (10000 − fee_bps) / 10000)
 *   amount_out          = floor(reserve_out × amount_in_after_fee / (reserve_in + amount_in_after_fee))
 *
 * computed in 128 bits without overflow; both floors are in the pool's favour, so the product of the
 * reserves never decreases, however many or small the swaps.
 *
 * Built like programs/htlc (stock clang, -mcpu=v1, our own packager): no writable globals, at most 5
 * arguments per call, 512-byte stack frames, handlers noinline. Checks run in the order written; the
 * first failing one names the error. The ABI is documented in programs/amm/README.md.
 */
#define MAX_ACCOUNTS 12
#include "../common/runtime.h"

#define POOL_VERSION 1

#define IX_INITIALIZE 0
#define IX_DEPOSIT 1
#define IX_WITHDRAW 2
#define IX_SWAP 3

#define INITIALIZE_DATA_LEN 3
#define LIQUIDITY_DATA_LEN 17
#define SWAP_DATA_LEN 17

#define BPS 10000

/* Custom error codes (Anchor-style base 6000 = 0x1770). Names in ERROR_NAMES, same order. */
enum {
  ERR_INVALID_INSTRUCTION = 0x1770,
  ERR_NOT_ENOUGH_ACCOUNTS,
  ERR_MISSING_SIGNATURE,
  ERR_ACCOUNT_NOT_WRITABLE,
  ERR_INVALID_TOKEN_PROGRAM,
  ERR_INVALID_SYSTEM_PROGRAM,
  ERR_INVALID_MINT,
  ERR_MINTS_NOT_ORDERED,
  ERR_INVALID_FEE,
  ERR_INVALID_POOL_ADDRESS,
  ERR_POOL_ALREADY_EXISTS,
  ERR_INVALID_VAULT_ADDRESS,
  ERR_INVALID_POOL_ACCOUNT,
  ERR_NOT_ADMIN,
  ERR_INVALID_VAULT,
  ERR_INVALID_TOKEN_ACCOUNT,
  ERR_TOKEN_ACCOUNT_MINT_MISMATCH,
  ERR_TOKEN_ACCOUNT_OWNER_MISMATCH,
  ERR_ZERO_AMOUNT,
  ERR_INSUFFICIENT_FUNDS,
  ERR_INSUFFICIENT_LIQUIDITY,
  ERR_ZERO_OUTPUT,
  ERR_SLIPPAGE_EXCEEDED,
  ERR_ARITHMETIC_OVERFLOW,
  ERR_END
};

#define ERROR_NAME_WIDTH 28
/* A 2-D char array, not an array of pointers: pointer tables would need data relocations. */
static const char ERROR_NAMES[ERR_END - ERR_INVALID_INSTRUCTION][ERROR_NAME_WIDTH] = {
    "InvalidInstruction",
    "NotEnoughAccounts",
    "MissingSignature",
    "AccountNotWritable",
    "InvalidTokenProgram",
    "InvalidSystemProgram",
    "InvalidMint",
    "MintsNotOrdered",
    "InvalidFee",
    "InvalidPoolAddress",
    "PoolAlreadyExists",
    "InvalidVaultAddress",
    "InvalidPoolAccount",
    "NotAdmin",
    "InvalidVault",
    "InvalidTokenAccount",
    "TokenAccountMintMismatch",
    "TokenAccountOwnerMismatch",
    "ZeroAmount",
    "InsufficientFunds",
    "InsufficientLiquidity",
    "ZeroOutput",
    "SlippageExceeded",
    "ArithmeticOverflow",
};

static const uint8_t SEED_POOL[] = {'p', 'o', 'o', 'l'};
static const uint8_t SEED_VAULT[] = {'v', 'a', 'u', 'l', 't'};

/* ------------------------------------------------------------------------------------------------
 * Pool account layout, version 1 (168 bytes, every field naturally aligned)
 * ---------------------------------------------------------------------------------------------- */

typedef struct {
  uint8_t version;               /* 0   POOL_VERSION */
  uint8_t pool_bump;             /* 1   canonical bump of ["pool", admin, mint_a, mint_b] */
  uint8_t vault_a_bump;          /* 2   canonical bump of ["vault", pool, mint_a] */
  uint8_t vault_b_bump;          /* 3   canonical bump of ["vault", pool, mint_b] */
  uint8_t reserved[2];           /* 4   zero */
  uint16_t fee_bps;              /* 6   swap fee, kept by the pool */
  uint8_t admin[PUBKEY_BYTES];   /* 8   deposits and withdraws liquidity */
  uint8_t mint_a[PUBKEY_BYTES];  /* 40  the lower mint, byte-wise */
  uint8_t mint_b[PUBKEY_BYTES];  /* 72  the higher mint */
  uint8_t vault_a[PUBKEY_BYTES]; /* 104 token account of mint_a owned by the pool */
  uint8_t vault_b[PUBKEY_BYTES]; /* 136 token account of mint_b owned by the pool */
} Pool;

_Static_assert(sizeof(Pool) == 168, "pool layout is part of the ABI");

/* ------------------------------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------------------------------- */

static void log_error(uint64_t code) {
  char line[11 + ERROR_NAME_WIDTH];
  static const char prefix[] = "amm: error ";
  uint64_t n = 0;
  for (; n < sizeof(prefix) - 1; n++) line[n] = prefix[n];
  const char *name = ERROR_NAMES[code - ERR_INVALID_INSTRUCTION];
  for (int i = 0; i < ERROR_NAME_WIDTH && name[i] != 0; i++) line[n++] = name[i];
  sol_log_(line, n);
}

static uint64_t check_signer(const RawAccount *a) { return a->is_signer ? 0 : ERR_MISSING_SIGNATURE; }

static uint64_t check_writable(const RawAccount *a) { return a->is_writable ? 0 : ERR_ACCOUNT_NOT_WRITABLE; }

static uint64_t check_token_program(const RawAccount *a) {
  return is_token_program(a) ? 0 : ERR_INVALID_TOKEN_PROGRAM;
}

/* A token account of `mint` whose owner (authority) is `authority`: the only kind of account the
 * program takes from or pays into, so funds never leave for anyone but the named party. */
static uint64_t check_token_account(const RawAccount *a, const uint8_t *mint, const uint8_t *authority) {
  if (!is_token_account(a)) return ERR_INVALID_TOKEN_ACCOUNT;
  if (!key_eq(a->data + TOKEN_ACCOUNT_MINT, mint)) return ERR_TOKEN_ACCOUNT_MINT_MISMATCH;
  if (!key_eq(a->data + TOKEN_ACCOUNT_OWNER, authority)) return ERR_TOKEN_ACCOUNT_OWNER_MISMATCH;
  return 0;
}

/* A pool this program wrote: owned by us, the right size and version. Only this program writes an
 * account it owns, so the stored fields (admin, mints, vaults, bumps) can be trusted. */
static uint64_t load_pool(const RawAccount *a, const uint8_t *program_id, const Pool **out) {
  if (!key_eq(a->owner, program_id) || a->data_len != sizeof(Pool)) return ERR_INVALID_POOL_ACCOUNT;
  const Pool *p = (const Pool *)a->data;
  if (p->version != POOL_VERSION) return ERR_INVALID_POOL_ACCOUNT;
  *out = p;
  return 0;
}

/* `vault` is the pool's recorded vault for `mint`, still a token account of that mint owned by the
 * pool. The program made it so and only the pool can change it; checked anyway, since a vault that
 * is not what the pool recorded must never price a swap. */
static uint64_t check_vault(const RawAccount *vault, const uint8_t *recorded, const uint8_t *mint,
                            const uint8_t *pool) {
  if (!key_eq(vault->key, recorded)) return ERR_INVALID_VAULT;
  if (!is_token_account(vault) || !key_eq(vault->data + TOKEN_ACCOUNT_MINT, mint) ||
      !key_eq(vault->data + TOKEN_ACCOUNT_OWNER, pool))
    return ERR_INVALID_VAULT;
  return 0;
}

/* The pool's signer seeds, rebuilt from its stored fields: ["pool", admin, mint_a, mint_b, bump]. */
typedef struct {
  SolBytes seeds[5];
  SolSignerSeeds signer;
} PoolSigner;

static void pool_signer(const Pool *p, PoolSigner *s) {
  s->seeds[0].addr = SEED_POOL;
  s->seeds[0].len = sizeof(SEED_POOL);
  s->seeds[1].addr = p->admin;
  s->seeds[1].len = PUBKEY_BYTES;
  s->seeds[2].addr = p->mint_a;
  s->seeds[2].len = PUBKEY_BYTES;
  s->seeds[3].addr = p->mint_b;
  s->seeds[3].len = PUBKEY_BYTES;
  s->seeds[4].addr = &p->pool_bump;
  s->seeds[4].len = 1;
  s->signer.addr = s->seeds;
  s->signer.len = 5;
}

/* ------------------------------------------------------------------------------------------------
 * Swap arithmetic (mirrored exactly by src/venue/math.ts; the tests hold the two to each other)
 * ---------------------------------------------------------------------------------------------- */

/* floor(amount_in × (10000 − fee_bps) / 10000): the fee is rounded up, in the pool's favour. */
static uint64_t after_fee(uint64_t amount_in, uint16_t fee_bps) {
  return div_128_by_64(mul_64x64(amount_in, BPS - fee_bps), BPS);
}

/* floor(reserve_out × a / (reserve_in + a)); the caller guarantees reserve_in + a fits in 64 bits and
 * reserve_in > 0, so the quotient is below reserve_out and the division's precondition holds. */
static uint64_t constant_product_out(uint64_t reserve_in, uint64_t reserve_out, uint64_t a) {
  return div_128_by_64(mul_64x64(reserve_out, a), reserve_in + a);
}

/* ------------------------------------------------------------------------------------------------
 * initialize — the admin creates the pool of two mints and its two vaults
 * accounts: 0 admin (s, w: pays the rent), 1 pool (w), 2 mint_a, 3 mint_b, 4 vault_a (w),
 *           5 vault_b (w), 6 token program, 7 system program
 * data:     0 tag, 1 fee_bps u16
 * ---------------------------------------------------------------------------------------------- */

typedef struct {
  const Input *in;
  uint8_t pool_bump;
  uint8_t vault_bumps[2];
} Creation;

static __attribute__((noinline)) uint64_t create_vault(const Creation *c, int side) {
  const Input *in = c->in;
  RawAccount *pool = in->accounts[1];
  RawAccount *mint = in->accounts[2 + side];
  RawAccount *vault = in->accounts[4 + side];
  SolBytes seeds[4] = {{SEED_VAULT, sizeof(SEED_VAULT)},
                       {pool->key, PUBKEY_BYTES},
                       {mint->key, PUBKEY_BYTES},
                       {&c->vault_bumps[side], 1}};
  SolSignerSeeds signer = {seeds, 4};
  SystemCall create = {in->accounts[0], vault, &signer};
  TRY(create_pda_account(&create, TOKEN_ACCOUNT_LEN, TOKEN_PROGRAM_ID, ERR_ARITHMETIC_OVERFLOW));
  return token_initialize_account(vault, mint, pool->key);
}

static uint64_t derive_vault(const Input *in, int side, uint8_t *bump) {
  uint8_t address[PUBKEY_BYTES];
  SolBytes seeds[3] = {
      {SEED_VAULT, sizeof(SEED_VAULT)}, {in->accounts[1]->key, PUBKEY_BYTES}, {in->accounts[2 + side]->key, PUBKEY_BYTES}};
  if (sol_try_find_program_address(seeds, 3, in->program_id, address, bump) != 0) return ERR_INVALID_VAULT_ADDRESS;
  if (!key_eq(address, in->accounts[4 + side]->key)) return ERR_INVALID_VAULT_ADDRESS;
  return 0;
}

static __attribute__((noinline)) uint64_t process_initialize(const Input *in) {
  if (in->data_len != INITIALIZE_DATA_LEN) return ERR_INVALID_INSTRUCTION;
  if (in->account_count < 8) return ERR_NOT_ENOUGH_ACCOUNTS;
  RawAccount *admin = in->accounts[0];
  RawAccount *pool = in->accounts[1];
  RawAccount *mint_a = in->accounts[2];
  RawAccount *mint_b = in->accounts[3];
  uint16_t fee_bps = read_u16(in->data + 1);
  TRY(check_signer(admin));
  TRY(check_writable(admin));
  TRY(check_writable(pool));
  TRY(check_writable(in->accounts[4]));
  TRY(check_writable(in->accounts[5]));
  TRY(check_token_program(in->accounts[6]));
  if (!is_system_program(in->accounts[7])) return ERR_INVALID_SYSTEM_PROGRAM;
  if (fee_bps >= BPS) return ERR_INVALID_FEE;
  if (!is_mint(mint_a) || !is_mint(mint_b)) return ERR_INVALID_MINT;
  /* One pool per pair and admin: the mints come in byte order, so (a, b) and (b, a) are one address. */
  if (key_cmp(mint_a->key, mint_b->key) >= 0) return ERR_MINTS_NOT_ORDERED;

  Creation c;
  c.in = in;
  uint8_t address[PUBKEY_BYTES];
  SolBytes seeds[3] = {{SEED_POOL, sizeof(SEED_POOL)}, {admin->key, PUBKEY_BYTES}, {mint_a->key, PUBKEY_BYTES}};
  SolBytes all_seeds[4] = {seeds[0], seeds[1], seeds[2], {mint_b->key, PUBKEY_BYTES}};
  if (sol_try_find_program_address(all_seeds, 4, in->program_id, address, &c.pool_bump) != 0)
    return ERR_INVALID_POOL_ADDRESS;
  if (!key_eq(address, pool->key)) return ERR_INVALID_POOL_ADDRESS;
  if (key_eq(pool->owner, in->program_id) || !is_unused(pool)) return ERR_POOL_ALREADY_EXISTS;
  TRY(derive_vault(in, 0, &c.vault_bumps[0]));
  TRY(derive_vault(in, 1, &c.vault_bumps[1]));
  if (!is_unused(in->accounts[4]) || !is_unused(in->accounts[5])) return ERR_POOL_ALREADY_EXISTS;

  SolBytes pool_seeds[5] = {all_seeds[0], all_seeds[1], all_seeds[2], all_seeds[3], {&c.pool_bump, 1}};
  SolSignerSeeds signer = {pool_seeds, 5};
  SystemCall create_pool = {admin, pool, &signer};
  TRY(create_pda_account(&create_pool, sizeof(Pool), in->program_id, ERR_ARITHMETIC_OVERFLOW));
  TRY(create_vault(&c, 0));
  TRY(create_vault(&c, 1));

  Pool *p = (Pool *)pool->data;
  p->version = POOL_VERSION;
  p->pool_bump = c.pool_bump;
  p->vault_a_bump = c.vault_bumps[0];
  p->vault_b_bump = c.vault_bumps[1];
  p->fee_bps = fee_bps;
  copy32(p->admin, admin->key);
  copy32(p->mint_a, mint_a->key);
  copy32(p->mint_b, mint_b->key);
  copy32(p->vault_a, in->accounts[4]->key);
  copy32(p->vault_b, in->accounts[5]->key);
  LOG("amm: initialized");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * deposit / withdraw — the admin moves liquidity in or out, either side or both
 * accounts: 0 admin (s), 1 pool, 2 vault_a (w), 3 vault_b (w), 4 admin token account of mint_a (w),
 *           5 admin token account of mint_b (w), 6 token program
 * data:     0 tag, 1 amount_a u64, 9 amount_b u64
 * ---------------------------------------------------------------------------------------------- */

static __attribute__((noinline)) uint64_t process_liquidity(const Input *in, bool deposit) {
  if (in->data_len != LIQUIDITY_DATA_LEN) return ERR_INVALID_INSTRUCTION;
  if (in->account_count < 7) return ERR_NOT_ENOUGH_ACCOUNTS;
  RawAccount *admin = in->accounts[0];
  RawAccount *pool = in->accounts[1];
  uint64_t amounts[2] = {read_u64(in->data + 1), read_u64(in->data + 9)};
  const Pool *p;
  TRY(check_signer(admin));
  for (int i = 2; i < 6; i++) TRY(check_writable(in->accounts[i]));
  TRY(load_pool(pool, in->program_id, &p));
  if (!key_eq(admin->key, p->admin)) return ERR_NOT_ADMIN;
  TRY(check_vault(in->accounts[2], p->vault_a, p->mint_a, pool->key));
  TRY(check_vault(in->accounts[3], p->vault_b, p->mint_b, pool->key));
  TRY(check_token_program(in->accounts[6]));
  TRY(check_token_account(in->accounts[4], p->mint_a, admin->key));
  TRY(check_token_account(in->accounts[5], p->mint_b, admin->key));
  if (amounts[0] == 0 && amounts[1] == 0) return ERR_ZERO_AMOUNT;
  for (int side = 0; side < 2; side++) {
    RawAccount *vault = in->accounts[2 + side];
    RawAccount *own = in->accounts[4 + side];
    if (deposit) {
      if (token_amount(own) < amounts[side]) return ERR_INSUFFICIENT_FUNDS;
      if (token_amount(vault) > UINT64_MAX - amounts[side]) return ERR_ARITHMETIC_OVERFLOW;
    } else {
      if (token_amount(vault) < amounts[side]) return ERR_INSUFFICIENT_LIQUIDITY;
      if (token_amount(own) > UINT64_MAX - amounts[side]) return ERR_ARITHMETIC_OVERFLOW;
    }
  }

  PoolSigner s;
  pool_signer(p, &s);
  for (int side = 0; side < 2; side++) {
    if (amounts[side] == 0) continue;
    RawAccount *vault = in->accounts[2 + side];
    RawAccount *own = in->accounts[4 + side];
    if (deposit)
      TRY(token_transfer(own, vault, admin, amounts[side], NULL));
    else
      TRY(token_transfer(vault, own, pool, amounts[side], &s.signer));
  }
  sol_log_64_(deposit ? IX_DEPOSIT : IX_WITHDRAW, amounts[0], amounts[1], token_amount(in->accounts[2]),
              token_amount(in->accounts[3]));
  if (deposit)
    LOG("amm: deposited");
  else
    LOG("amm: withdrew");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * swap — anyone; exact in, at least min_out out, or nothing happens
 * accounts: 0 user (s), 1 pool, 2 vault in (w), 3 vault out (w), 4 user source (w, mint in, owner
 *           user), 5 user destination (w, mint out, owner user), 6 token program
 * data:     0 tag, 1 amount_in u64, 9 min_out u64
 * The direction is the vaults': (vault_a, vault_b) sells mint_a for mint_b, (vault_b, vault_a) the
 * reverse. Return data: amount_out as u64 LE.
 * ---------------------------------------------------------------------------------------------- */

static __attribute__((noinline)) uint64_t process_swap(const Input *in) {
  if (in->data_len != SWAP_DATA_LEN) return ERR_INVALID_INSTRUCTION;
  if (in->account_count < 7) return ERR_NOT_ENOUGH_ACCOUNTS;
  RawAccount *user = in->accounts[0];
  RawAccount *pool = in->accounts[1];
  RawAccount *vault_in = in->accounts[2];
  RawAccount *vault_out = in->accounts[3];
  RawAccount *source = in->accounts[4];
  RawAccount *destination = in->accounts[5];
  uint64_t amount_in = read_u64(in->data + 1);
  uint64_t min_out = read_u64(in->data + 9);
  const Pool *p;
  TRY(check_signer(user));
  TRY(check_writable(vault_in));
  TRY(check_writable(vault_out));
  TRY(check_writable(source));
  TRY(check_writable(destination));
  TRY(load_pool(pool, in->program_id, &p));
  const uint8_t *mint_in;
  const uint8_t *mint_out;
  if (key_eq(vault_in->key, p->vault_a) && key_eq(vault_out->key, p->vault_b)) {
    mint_in = p->mint_a;
    mint_out = p->mint_b;
  } else if (key_eq(vault_in->key, p->vault_b) && key_eq(vault_out->key, p->vault_a)) {
    mint_in = p->mint_b;
    mint_out = p->mint_a;
  } else {
    return ERR_INVALID_VAULT;
  }
  TRY(check_vault(vault_in, vault_in->key, mint_in, pool->key));
  TRY(check_vault(vault_out, vault_out->key, mint_out, pool->key));
  TRY(check_token_program(in->accounts[6]));
  TRY(check_token_account(source, mint_in, user->key));
  TRY(check_token_account(destination, mint_out, user->key));
  if (amount_in == 0) return ERR_ZERO_AMOUNT;
  if (token_amount(source) < amount_in) return ERR_INSUFFICIENT_FUNDS;

  uint64_t reserve_in = token_amount(vault_in);
  uint64_t reserve_out = token_amount(vault_out);
  /* An empty side has no price: with reserve_in = 0 the formula would hand out all of reserve_out. */
  if (reserve_in == 0 || reserve_out == 0) return ERR_INSUFFICIENT_LIQUIDITY;
  /* The vault must be able to hold what comes in (and so must the denominator below). */
  if (reserve_in > UINT64_MAX - amount_in) return ERR_ARITHMETIC_OVERFLOW;
  uint64_t effective = after_fee(amount_in, p->fee_bps);
  uint64_t amount_out = constant_product_out(reserve_in, reserve_out, effective);
  if (amount_out == 0) return ERR_ZERO_OUTPUT;
  if (amount_out < min_out) return ERR_SLIPPAGE_EXCEEDED;
  if (token_amount(destination) > UINT64_MAX - amount_out) return ERR_ARITHMETIC_OVERFLOW;

  TRY(token_transfer(source, vault_in, user, amount_in, NULL));
  PoolSigner s;
  pool_signer(p, &s);
  TRY(token_transfer(vault_out, destination, pool, amount_out, &s.signer));

  uint8_t out[8];
  write_u64(out, amount_out);
  sol_set_return_data(out, sizeof(out));
  sol_log_64_(amount_in, amount_out, amount_in - effective, token_amount(vault_in), token_amount(vault_out));
  LOG("amm: swapped");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Entrypoint
 * ---------------------------------------------------------------------------------------------- */

static uint64_t dispatch(const Input *in) {
  if (in->data_len < 1) return ERR_INVALID_INSTRUCTION;
  switch (in->data[0]) {
    case IX_INITIALIZE:
      return process_initialize(in);
    case IX_DEPOSIT:
      return process_liquidity(in, true);
    case IX_WITHDRAW:
      return process_liquidity(in, false);
    case IX_SWAP:
      return process_swap(in);
    default:
      return ERR_INVALID_INSTRUCTION;
  }
}

uint64_t entrypoint(const uint8_t *input) {
  Input in;
  parse_input(input, &in);
  uint64_t err = dispatch(&in);
  if (err >= ERR_INVALID_INSTRUCTION && err < ERR_END) log_error(err);
  return err;
}
