/*
 * HTLC escrow program: hash time-locked escrows of SPL tokens for the RFQ maker service (docs/lifecycle.md).
 *
 * A lock moves tokens into a vault token account owned by an escrow PDA. The escrow pays its
 * recipient only against the preimage of its hashlock and only while chain time < expiry (redeem);
 * it pays its initializer back once chain time >= expiry (refund) or at once when the recipient
 * signs a cancel. The initializer alone closes a settled escrow and gets all rent back.
 * A maker escrow may only be locked against a live taker escrow with the mirrored terms.
 *
 * Built with stock clang (-target bpf -mcpu=v1) and packaged by programs/build/sbpf-link.ts, so:
 * no writable globals, at most 5 arguments per call, 512-byte stack frames, no struct copies that
 * would lower to memcpy. Every instruction handler is a separate noinline function so each gets
 * its own frame. Checks run in the order written; the first failing one names the error.
 * The ABI (accounts, data, layout, errors) is documented in programs/htlc/README.md.
 */
#include "../common/sbf.h"

/* ------------------------------------------------------------------------------------------------
 * Constants
 * ---------------------------------------------------------------------------------------------- */

#define ESCROW_VERSION 1
#define KIND_TAKER 1
#define KIND_MAKER 2
#define STATUS_LOCKED 1
#define STATUS_REDEEMED 2
#define STATUS_REFUNDED 3
#define STATUS_CANCELLED 4

#define IX_LOCK 0
#define IX_REDEEM 1
#define IX_REFUND 2
#define IX_CANCEL 3
#define IX_CLOSE 4

#define LOCK_DATA_LEN 90        /* taker lock */
#define MAKER_LOCK_DATA_LEN 138 /* maker lock: + the taker escrow's expected amount, mint and expiry */
#define REDEEM_DATA_LEN 33

/* SPL Token account and mint layouts (classic Tokenkeg program). */
#define TOKEN_ACCOUNT_LEN 165
#define TOKEN_ACCOUNT_MINT 0
#define TOKEN_ACCOUNT_OWNER 32
#define TOKEN_ACCOUNT_AMOUNT 64
#define TOKEN_ACCOUNT_STATE 108
#define TOKEN_STATE_INITIALIZED 1
#define MINT_LEN 82
#define MINT_IS_INITIALIZED 45

/* Rent is charged on data plus this fixed per-account overhead. */
#define ACCOUNT_STORAGE_OVERHEAD 128

/* The most accounts any instruction reads; more are skipped, never an error. */
#define MAX_ACCOUNTS 12

/* Custom error codes (Anchor-style base 6000 = 0x1770). Names in ERROR_NAMES, same order. */
enum {
  ERR_PREIMAGE_MISMATCH = 0x1770,
  ERR_INVALID_INSTRUCTION,
  ERR_NOT_ENOUGH_ACCOUNTS,
  ERR_MISSING_SIGNATURE,
  ERR_ACCOUNT_NOT_WRITABLE,
  ERR_INVALID_ESCROW_ADDRESS,
  ERR_INVALID_VAULT_ADDRESS,
  ERR_INVALID_TOKEN_PROGRAM,
  ERR_INVALID_SYSTEM_PROGRAM,
  ERR_INVALID_MINT,
  ERR_INVALID_TOKEN_ACCOUNT,
  ERR_TOKEN_ACCOUNT_MINT_MISMATCH,
  ERR_TOKEN_ACCOUNT_OWNER_MISMATCH,
  ERR_ZERO_AMOUNT,
  ERR_EXPIRY_NOT_IN_FUTURE,
  ERR_EXPIRY_NOT_AFTER_DEADLINE,
  ERR_LOCK_DEADLINE_PASSED,
  ERR_ESCROW_ALREADY_EXISTS,
  ERR_INVALID_ESCROW_ACCOUNT,
  ERR_ESCROW_NOT_LOCKED,
  ERR_ESCROW_EXPIRED,
  ERR_ESCROW_NOT_EXPIRED,
  ERR_ESCROW_NOT_SETTLED,
  ERR_NOT_RECIPIENT,
  ERR_NOT_INITIALIZER,
  ERR_INVALID_TAKER_ESCROW,
  ERR_TAKER_ESCROW_NOT_LOCKED,
  ERR_HASHLOCK_MISMATCH,
  ERR_COUNTERPARTY_MISMATCH,
  ERR_EXPIRY_NOT_BEFORE_TAKER,
  ERR_INSUFFICIENT_FUNDS,
  ERR_ARITHMETIC_OVERFLOW,
  ERR_VAULT_NOT_EMPTY,
  ERR_TAKER_ESCROW_MINT_MISMATCH,
  ERR_TAKER_ESCROW_AMOUNT_MISMATCH,
  ERR_TAKER_ESCROW_EXPIRY_MISMATCH,
  ERR_END
};

#define ERROR_NAME_WIDTH 28
/* A 2-D char array, not an array of pointers: pointer tables would need data relocations. */
static const char ERROR_NAMES[ERR_END - ERR_PREIMAGE_MISMATCH][ERROR_NAME_WIDTH] = {
    "PreimageMismatch",
    "InvalidInstruction",
    "NotEnoughAccounts",
    "MissingSignature",
    "AccountNotWritable",
    "InvalidEscrowAddress",
    "InvalidVaultAddress",
    "InvalidTokenProgram",
    "InvalidSystemProgram",
    "InvalidMint",
    "InvalidTokenAccount",
    "TokenAccountMintMismatch",
    "TokenAccountOwnerMismatch",
    "ZeroAmount",
    "ExpiryNotInFuture",
    "ExpiryNotAfterDeadline",
    "LockDeadlinePassed",
    "EscrowAlreadyExists",
    "InvalidEscrowAccount",
    "EscrowNotLocked",
    "EscrowExpired",
    "EscrowNotExpired",
    "EscrowNotSettled",
    "NotRecipient",
    "NotInitializer",
    "InvalidTakerEscrow",
    "TakerEscrowNotLocked",
    "HashlockMismatch",
    "CounterpartyMismatch",
    "ExpiryNotBeforeTaker",
    "InsufficientFunds",
    "ArithmeticOverflow",
    "VaultNotEmpty",
    "TakerEscrowMintMismatch",
    "TakerEscrowAmountMismatch",
    "TakerEscrowExpiryMismatch",
};

/* TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA */
static const uint8_t TOKEN_PROGRAM_ID[PUBKEY_BYTES] = {
    0x06, 0xdd, 0xf6, 0xe1, 0xd7, 0x65, 0xa1, 0x93, 0xd9, 0xcb, 0xe1, 0x46, 0xce, 0xeb, 0x79, 0xac,
    0x1c, 0xb4, 0x85, 0xed, 0x5f, 0x5b, 0x37, 0x91, 0x3a, 0x8c, 0xf5, 0x85, 0x7e, 0xff, 0x00, 0xa9};
/* 11111111111111111111111111111111 */
static const uint8_t SYSTEM_PROGRAM_ID[PUBKEY_BYTES] = {0};

static const uint8_t SEED_TAKER[] = {'t', 'a', 'k', 'e', 'r'};
static const uint8_t SEED_MAKER[] = {'m', 'a', 'k', 'e', 'r'};
static const uint8_t SEED_VAULT[] = {'v', 'a', 'u', 'l', 't'};

/* ------------------------------------------------------------------------------------------------
 * Escrow account layout, version 1 (264 bytes, every field naturally aligned)
 * ---------------------------------------------------------------------------------------------- */

typedef struct {
  uint8_t version;     /* 0   ESCROW_VERSION */
  uint8_t kind;        /* 1   KIND_TAKER | KIND_MAKER */
  uint8_t status;      /* 2   STATUS_* */
  uint8_t escrow_bump; /* 3   canonical bump of the escrow PDA */
  uint8_t vault_bump;  /* 4   canonical bump of the vault PDA */
  uint8_t reserved[3]; /* 5   zero */
  uint8_t initializer[PUBKEY_BYTES];  /* 8   locked the funds, gets refunds and all rent */
  uint8_t recipient[PUBKEY_BYTES];    /* 40  paid on redeem; may cancel */
  uint8_t mint[PUBKEY_BYTES];         /* 72  SPL mint of the escrowed tokens */
  uint8_t vault[PUBKEY_BYTES];        /* 104 token account PDA ["vault", escrow] */
  uint8_t hashlock[PUBKEY_BYTES];     /* 136 sha256(preimage) */
  uint64_t amount;                    /* 168 tokens locked, base units */
  int64_t expiry;                     /* 176 unix seconds; redeem while now < expiry */
  int64_t lock_deadline;              /* 184 unix seconds; lock allowed while now <= deadline */
  int64_t locked_at;                  /* 192 chain time of the lock */
  uint8_t preimage[PUBKEY_BYTES];     /* 200 zero until redeemed */
  uint8_t taker_escrow[PUBKEY_BYTES]; /* 232 maker escrows: the taker escrow locked against */
} Escrow;

_Static_assert(sizeof(Escrow) == 264, "escrow layout is part of the ABI");

/* ------------------------------------------------------------------------------------------------
 * Input
 * ---------------------------------------------------------------------------------------------- */

typedef struct {
  RawAccount *accounts[MAX_ACCOUNTS];
  uint64_t account_count; /* as serialized; may exceed MAX_ACCOUNTS */
  const uint8_t *data;
  uint64_t data_len;
  const uint8_t *program_id;
} Input;

/* Walks the aligned (v0) serialization. A duplicate entry points at its first occurrence, so an
 * account passed twice is the same RawAccount and writes through one alias are seen by the other. */
static void parse_input(const uint8_t *input, Input *in) {
  uint64_t count = *(const uint64_t *)input;
  const uint8_t *p = input + sizeof(uint64_t);
  in->account_count = count;
  for (uint64_t i = 0; i < count; i++) {
    RawAccount *account = (RawAccount *)p;
    if (account->dup_info != NON_DUP_MARKER) {
      if (i < MAX_ACCOUNTS) in->accounts[i] = in->accounts[account->dup_info];
      p += 8;
      continue;
    }
    if (i < MAX_ACCOUNTS) in->accounts[i] = account;
    p += sizeof(RawAccount) + account->data_len + MAX_PERMITTED_DATA_INCREASE;
    p = (const uint8_t *)(((uint64_t)p + 7) & ~(uint64_t)7);
    p += sizeof(uint64_t); /* rent_epoch */
  }
  in->data_len = *(const uint64_t *)p;
  in->data = p + sizeof(uint64_t);
  in->program_id = in->data + in->data_len;
}

/* ------------------------------------------------------------------------------------------------
 * Small helpers (byte loops rather than memcpy/memcmp: -fno-builtin keeps them loops)
 * ---------------------------------------------------------------------------------------------- */

static bool key_eq(const uint8_t *a, const uint8_t *b) {
  uint8_t diff = 0;
  for (int i = 0; i < PUBKEY_BYTES; i++) diff |= a[i] ^ b[i];
  return diff == 0;
}

static void copy32(uint8_t *dst, const uint8_t *src) {
  for (int i = 0; i < PUBKEY_BYTES; i++) dst[i] = src[i];
}

static void zero_bytes(uint8_t *dst, uint64_t len) {
  for (uint64_t i = 0; i < len; i++) dst[i] = 0;
}

/* Instruction data is not aligned; assemble little-endian integers byte by byte. */
static uint64_t read_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

static void write_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static int64_t chain_time(void) {
  SolClock clock;
  sol_get_clock_sysvar(&clock);
  return clock.unix_timestamp;
}

static uint64_t token_amount(const RawAccount *token_account) {
  return *(const uint64_t *)(token_account->data + TOKEN_ACCOUNT_AMOUNT);
}

static void log_error(uint64_t code) {
  char line[12 + ERROR_NAME_WIDTH];
  static const char prefix[] = "htlc: error ";
  uint64_t n = 0;
  for (; n < sizeof(prefix) - 1; n++) line[n] = prefix[n];
  const char *name = ERROR_NAMES[code - ERR_PREIMAGE_MISMATCH];
  for (int i = 0; i < ERROR_NAME_WIDTH && name[i] != 0; i++) line[n++] = name[i];
  sol_log_(line, n);
}

/* ------------------------------------------------------------------------------------------------
 * Checks: each answers one question and names the error when the answer is no
 * ---------------------------------------------------------------------------------------------- */

#define TRY(expr)                  \
  do {                             \
    uint64_t err_ = (expr);        \
    if (err_ != 0) return err_;    \
  } while (0)

static uint64_t check_signer(const RawAccount *a) { return a->is_signer ? 0 : ERR_MISSING_SIGNATURE; }

static uint64_t check_writable(const RawAccount *a) { return a->is_writable ? 0 : ERR_ACCOUNT_NOT_WRITABLE; }

static uint64_t check_token_program(const RawAccount *a) {
  return key_eq(a->key, TOKEN_PROGRAM_ID) ? 0 : ERR_INVALID_TOKEN_PROGRAM;
}

static uint64_t check_system_program(const RawAccount *a) {
  return key_eq(a->key, SYSTEM_PROGRAM_ID) ? 0 : ERR_INVALID_SYSTEM_PROGRAM;
}

/* An initialized mint of the classic token program. */
static uint64_t check_mint(const RawAccount *a) {
  if (!key_eq(a->owner, TOKEN_PROGRAM_ID) || a->data_len != MINT_LEN || a->data[MINT_IS_INITIALIZED] != 1)
    return ERR_INVALID_MINT;
  return 0;
}

/* An initialized, unfrozen token account of `mint` whose owner (authority) is `authority`: the only
 * kind of account the program pays into, so funds can never go to anyone but the named party. */
static uint64_t check_token_account(const RawAccount *a, const uint8_t *mint, const uint8_t *authority) {
  if (!key_eq(a->owner, TOKEN_PROGRAM_ID) || a->data_len != TOKEN_ACCOUNT_LEN ||
      a->data[TOKEN_ACCOUNT_STATE] != TOKEN_STATE_INITIALIZED)
    return ERR_INVALID_TOKEN_ACCOUNT;
  if (!key_eq(a->data + TOKEN_ACCOUNT_MINT, mint)) return ERR_TOKEN_ACCOUNT_MINT_MISMATCH;
  if (!key_eq(a->data + TOKEN_ACCOUNT_OWNER, authority)) return ERR_TOKEN_ACCOUNT_OWNER_MISMATCH;
  return 0;
}

/* An escrow this program wrote: owned by us, the right size and version. Only this program can
 * write an account it owns, so the stored fields (vault, bumps, parties) can be trusted. */
static uint64_t load_escrow(const RawAccount *a, const uint8_t *program_id, Escrow **out) {
  if (!key_eq(a->owner, program_id) || a->data_len != sizeof(Escrow)) return ERR_INVALID_ESCROW_ACCOUNT;
  Escrow *e = (Escrow *)a->data;
  if (e->version != ESCROW_VERSION) return ERR_INVALID_ESCROW_ACCOUNT;
  *out = e;
  return 0;
}

/* The vault passed is the one recorded at lock (itself the PDA ["vault", escrow]). */
static uint64_t check_vault(const RawAccount *vault, const Escrow *e) {
  return key_eq(vault->key, e->vault) ? 0 : ERR_INVALID_VAULT_ADDRESS;
}

static uint64_t check_locked(const Escrow *e) { return e->status == STATUS_LOCKED ? 0 : ERR_ESCROW_NOT_LOCKED; }

/* ------------------------------------------------------------------------------------------------
 * PDA seeds
 * ---------------------------------------------------------------------------------------------- */

/* The escrow's signer seeds, rebuilt from its stored fields: ["taker", initializer, hashlock, bump]
 * or ["maker", taker_escrow, bump]. Pointers refer into the escrow data itself. */
typedef struct {
  SolBytes seeds[4];
  SolSignerSeeds signer;
} EscrowSigner;

static void escrow_signer(const Escrow *e, EscrowSigner *s) {
  if (e->kind == KIND_TAKER) {
    s->seeds[0].addr = SEED_TAKER;
    s->seeds[0].len = sizeof(SEED_TAKER);
    s->seeds[1].addr = e->initializer;
    s->seeds[1].len = PUBKEY_BYTES;
    s->seeds[2].addr = e->hashlock;
    s->seeds[2].len = PUBKEY_BYTES;
    s->seeds[3].addr = &e->escrow_bump;
    s->seeds[3].len = 1;
    s->signer.len = 4;
  } else {
    s->seeds[0].addr = SEED_MAKER;
    s->seeds[0].len = sizeof(SEED_MAKER);
    s->seeds[1].addr = e->taker_escrow;
    s->seeds[1].len = PUBKEY_BYTES;
    s->seeds[2].addr = &e->escrow_bump;
    s->seeds[2].len = 1;
    s->signer.len = 3;
  }
  s->signer.addr = s->seeds;
}

/* ------------------------------------------------------------------------------------------------
 * Cross-program invocations
 * ---------------------------------------------------------------------------------------------- */

static void account_info(RawAccount *a, SolAccountInfo *info) {
  info->key = a->key;
  info->lamports = &a->lamports;
  info->data_len = a->data_len;
  info->data = a->data;
  info->owner = a->owner;
  info->rent_epoch = 0;
  info->is_signer = a->is_signer;
  info->is_writable = a->is_writable;
  info->executable = a->executable;
}

/* SPL Token Transfer (3): `amount` from `from` to `to`, authority signing either as a transaction
 * signer (signer == NULL) or as our PDA (signer seeds given). */
static __attribute__((noinline)) uint64_t token_transfer(RawAccount *from, RawAccount *to, RawAccount *authority,
                                                          uint64_t amount, const SolSignerSeeds *signer) {
  uint8_t data[9];
  data[0] = 3;
  write_u64(data + 1, amount);
  SolAccountMeta metas[3] = {{from->key, true, false}, {to->key, true, false}, {authority->key, false, true}};
  SolAccountInfo infos[3];
  account_info(from, &infos[0]);
  account_info(to, &infos[1]);
  account_info(authority, &infos[2]);
  SolInstruction ix = {TOKEN_PROGRAM_ID, metas, 3, data, sizeof(data)};
  return sol_invoke_signed_c(&ix, infos, 3, signer, signer ? 1 : 0);
}

/* SPL Token InitializeAccount3 (18): the vault, of `mint`, owned by the escrow PDA. */
static __attribute__((noinline)) uint64_t token_initialize_account(RawAccount *vault, RawAccount *mint,
                                                                    const uint8_t *owner) {
  uint8_t data[1 + PUBKEY_BYTES];
  data[0] = 18;
  copy32(data + 1, owner);
  SolAccountMeta metas[2] = {{vault->key, true, false}, {mint->key, false, false}};
  SolAccountInfo infos[2];
  account_info(vault, &infos[0]);
  account_info(mint, &infos[1]);
  SolInstruction ix = {TOKEN_PROGRAM_ID, metas, 2, data, sizeof(data)};
  return sol_invoke_signed_c(&ix, infos, 2, NULL, 0);
}

/* SPL Token CloseAccount (9): the vault's rent to `destination`, signed by the escrow PDA. */
static __attribute__((noinline)) uint64_t token_close_account(RawAccount *vault, RawAccount *destination,
                                                               RawAccount *authority, const SolSignerSeeds *signer) {
  uint8_t data[1] = {9};
  SolAccountMeta metas[3] = {{vault->key, true, false}, {destination->key, true, false}, {authority->key, false, true}};
  SolAccountInfo infos[3];
  account_info(vault, &infos[0]);
  account_info(destination, &infos[1]);
  account_info(authority, &infos[2]);
  SolInstruction ix = {TOKEN_PROGRAM_ID, metas, 3, data, sizeof(data)};
  return sol_invoke_signed_c(&ix, infos, 3, signer, 1);
}

/* One system-program instruction over (payer?, target), target signing as a PDA. */
typedef struct {
  RawAccount *payer; /* NULL when the instruction names only the target */
  RawAccount *target;
  const SolSignerSeeds *target_signer;
} SystemCall;

static __attribute__((noinline)) uint64_t system_invoke(const SystemCall *call, const uint8_t *data,
                                                        uint64_t data_len) {
  SolAccountMeta metas[2];
  SolAccountInfo infos[2];
  uint64_t n = 0;
  if (call->payer) {
    metas[n].pubkey = call->payer->key;
    metas[n].is_writable = true;
    metas[n].is_signer = true;
    account_info(call->payer, &infos[n]);
    n++;
  }
  metas[n].pubkey = call->target->key;
  metas[n].is_writable = true;
  metas[n].is_signer = true;
  account_info(call->target, &infos[n]);
  n++;
  SolInstruction ix = {SYSTEM_PROGRAM_ID, metas, n, data, data_len};
  return sol_invoke_signed_c(&ix, infos, n, call->target_signer, 1);
}

/* The rent-exempt minimum for `space` bytes, read from the Rent sysvar. The threshold is an f64
 * (2.0 in practice); it is multiplied exactly in integers, truncating like the runtime's `as u64`. */
static uint64_t rent_exempt_minimum(uint64_t space, uint64_t *out) {
  SolRent rent;
  sol_get_rent_sysvar(&rent);
  if ((rent.lamports_per_byte_year >> 32) != 0 || (space >> 16) != 0) return ERR_ARITHMETIC_OVERFLOW;
  uint64_t base = (ACCOUNT_STORAGE_OVERHEAD + space) * rent.lamports_per_byte_year;
  uint64_t bits = rent.exemption_threshold_bits;
  int64_t exponent = (int64_t)((bits >> 52) & 0x7ff);
  if ((bits >> 63) != 0 || exponent == 0) {
    *out = 0;
    return 0;
  }
  uint64_t mantissa = (bits & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52);
  exponent -= 1075;
  while ((mantissa & 1) == 0 && exponent < 0) {
    mantissa >>= 1;
    exponent++;
  }
  /* Operands below 2^32 keep the product in 64 bits (real values: base ~2^20, mantissa 1). Written
   * without a division-based overflow test, which LLVM would turn into an unsupported __multi3. */
  if ((base >> 32) != 0 || (mantissa >> 32) != 0) return ERR_ARITHMETIC_OVERFLOW;
  uint64_t value = base * mantissa;
  if (exponent >= 0) {
    if (exponent > 31 || (value >> (63 - exponent)) != 0) return ERR_ARITHMETIC_OVERFLOW;
    value <<= exponent;
  } else {
    value = exponent < -63 ? 0 : value >> -exponent;
  }
  *out = value;
  return 0;
}

/* Creates the PDA `target` with `space` bytes owned by `owner`, rent paid by `payer`. An address
 * someone pre-funded with lamports (to block CreateAccount) is topped up, allocated and assigned
 * instead, so nobody can stop a lock by sending lamports to a predictable address. */
static __attribute__((noinline)) uint64_t create_pda_account(const SystemCall *call, uint64_t space,
                                                             const uint8_t *owner) {
  uint64_t rent;
  TRY(rent_exempt_minimum(space, &rent));
  uint8_t data[52];
  if (call->target->lamports == 0) {
    write_u64(data, 0); /* CreateAccount (u32 tag 0) + 4 bytes of the lamports field below */
    write_u64(data + 4, rent);
    write_u64(data + 12, space);
    copy32(data + 20, owner);
    return system_invoke(call, data, 52);
  }
  if (call->target->lamports < rent) {
    write_u64(data, 2); /* Transfer */
    write_u64(data + 4, rent - call->target->lamports);
    SystemCall transfer = {call->payer, call->target, call->target_signer};
    TRY(system_invoke(&transfer, data, 12));
  }
  SystemCall self = {NULL, call->target, call->target_signer};
  write_u64(data, 8); /* Allocate */
  write_u64(data + 4, space);
  TRY(system_invoke(&self, data, 12));
  write_u64(data, 1); /* Assign */
  copy32(data + 4, owner);
  return system_invoke(&self, data, 36);
}

/* ------------------------------------------------------------------------------------------------
 * lock
 * accounts: 0 initializer (signer, writable), 1 escrow (w), 2 vault (w), 3 mint, 4 initializer token
 *           account (w), 5 token program, 6 system program, [7 taker escrow — maker locks only]
 * data:     0 tag, 1 kind, 2 hashlock[32], 34 recipient[32], 66 amount u64, 74 expiry i64,
 *           82 lock_deadline i64; maker locks only: 90 taker_amount u64, 98 taker_mint[32],
 *           130 taker_expiry i64
 * ---------------------------------------------------------------------------------------------- */

typedef struct {
  uint8_t kind;
  const uint8_t *hashlock;
  const uint8_t *recipient;
  uint64_t amount;
  int64_t expiry;
  int64_t lock_deadline;
  int64_t now;
  /* Maker locks only: what the taker escrow must hold, exactly. */
  uint64_t taker_amount;
  const uint8_t *taker_mint;
  int64_t taker_expiry;
} LockTerms;

/* A maker lock mirrors a live taker escrow: same hashlock, parties swapped, an expiry strictly before
 * the taker's, so the maker can always redeem the taker escrow with the revealed preimage, and exactly
 * the amount of exactly the mint the maker agreed to take. The escrow's own fields settle the amount:
 * its vault received exactly `amount` at lock (classic SPL Token moves no fee), only the escrow PDA can
 * move tokens out, and the program does so only on the redeem/refund/cancel that ends `locked`; a
 * donation can only add. So a locked escrow's vault holds at least `amount` of `mint`, and its redeem
 * pays exactly `amount`: the vault need not be read. And the taker escrow expires exactly when agreed:
 * strictly after the maker's is not enough, for the agreed gap is the maker's time to redeem the taker
 * escrow after a last-moment reveal. Without these three checks a taker escrow re-created at the same
 * address (a fork took the first away) for 1 raw unit, of another mint, or expiring one second after the
 * maker lock, would carry the maker's already-signed lock. */
static uint64_t check_taker_escrow(const RawAccount *taker, const uint8_t *program_id, const uint8_t *maker,
                                   const LockTerms *t) {
  if (!key_eq(taker->owner, program_id) || taker->data_len != sizeof(Escrow)) return ERR_INVALID_TAKER_ESCROW;
  const Escrow *te = (const Escrow *)taker->data;
  if (te->version != ESCROW_VERSION || te->kind != KIND_TAKER) return ERR_INVALID_TAKER_ESCROW;
  if (te->status != STATUS_LOCKED) return ERR_TAKER_ESCROW_NOT_LOCKED;
  if (!key_eq(te->hashlock, t->hashlock)) return ERR_HASHLOCK_MISMATCH;
  if (!key_eq(te->recipient, maker) || !key_eq(te->initializer, t->recipient)) return ERR_COUNTERPARTY_MISMATCH;
  if (t->expiry >= te->expiry) return ERR_EXPIRY_NOT_BEFORE_TAKER;
  if (!key_eq(te->mint, t->taker_mint)) return ERR_TAKER_ESCROW_MINT_MISMATCH;
  if (te->amount != t->taker_amount) return ERR_TAKER_ESCROW_AMOUNT_MISMATCH;
  if (te->expiry != t->taker_expiry) return ERR_TAKER_ESCROW_EXPIRY_MISMATCH;
  return 0;
}

static uint64_t check_lock_terms(const LockTerms *t) {
  if (t->amount == 0) return ERR_ZERO_AMOUNT;
  /* The lock window includes its last second: allowed while now <= lock_deadline. */
  if (t->now > t->lock_deadline) return ERR_LOCK_DEADLINE_PASSED;
  if (t->expiry <= t->now) return ERR_EXPIRY_NOT_IN_FUTURE;
  if (t->expiry <= t->lock_deadline) return ERR_EXPIRY_NOT_AFTER_DEADLINE;
  return 0;
}

/* The canonical PDA for the escrow; `bump` receives its bump. A non-canonical bump would allow a
 * second escrow per trade, so the address must be exactly the one find_program_address returns. */
static uint64_t derive_escrow(const Input *in, const LockTerms *t, uint8_t *address, uint8_t *bump) {
  RawAccount *initializer = in->accounts[0];
  SolBytes seeds[3];
  uint64_t n;
  if (t->kind == KIND_TAKER) {
    seeds[0].addr = SEED_TAKER;
    seeds[0].len = sizeof(SEED_TAKER);
    seeds[1].addr = initializer->key;
    seeds[1].len = PUBKEY_BYTES;
    seeds[2].addr = t->hashlock;
    seeds[2].len = PUBKEY_BYTES;
    n = 3;
  } else {
    seeds[0].addr = SEED_MAKER;
    seeds[0].len = sizeof(SEED_MAKER);
    seeds[1].addr = in->accounts[7]->key;
    seeds[1].len = PUBKEY_BYTES;
    n = 2;
  }
  if (sol_try_find_program_address(seeds, n, in->program_id, address, bump) != 0) return ERR_INVALID_ESCROW_ADDRESS;
  return 0;
}

static uint64_t derive_vault(const uint8_t *escrow, const uint8_t *program_id, uint8_t *address, uint8_t *bump) {
  SolBytes seeds[2] = {{SEED_VAULT, sizeof(SEED_VAULT)}, {escrow, PUBKEY_BYTES}};
  if (sol_try_find_program_address(seeds, 2, program_id, address, bump) != 0) return ERR_INVALID_VAULT_ADDRESS;
  return 0;
}

/* A fresh address: never an escrow of ours (second lock) and nothing allocated or assigned. */
static uint64_t check_unused(const RawAccount *a, const uint8_t *program_id) {
  if (key_eq(a->owner, program_id)) return ERR_ESCROW_ALREADY_EXISTS;
  if (!key_eq(a->owner, SYSTEM_PROGRAM_ID) || a->data_len != 0) return ERR_ESCROW_ALREADY_EXISTS;
  return 0;
}

static void write_escrow(Escrow *e, const Input *in, const LockTerms *t, uint8_t escrow_bump, uint8_t vault_bump) {
  e->version = ESCROW_VERSION;
  e->kind = t->kind;
  e->status = STATUS_LOCKED;
  e->escrow_bump = escrow_bump;
  e->vault_bump = vault_bump;
  copy32(e->initializer, in->accounts[0]->key);
  copy32(e->recipient, t->recipient);
  copy32(e->mint, in->accounts[3]->key);
  copy32(e->vault, in->accounts[2]->key);
  copy32(e->hashlock, t->hashlock);
  e->amount = t->amount;
  e->expiry = t->expiry;
  e->lock_deadline = t->lock_deadline;
  e->locked_at = t->now;
  if (t->kind == KIND_MAKER) copy32(e->taker_escrow, in->accounts[7]->key);
}

static __attribute__((noinline)) uint64_t process_lock(const Input *in) {
  if (in->data_len < 2) return ERR_INVALID_INSTRUCTION;
  LockTerms t;
  t.kind = in->data[1];
  if (t.kind != KIND_TAKER && t.kind != KIND_MAKER) return ERR_INVALID_INSTRUCTION;
  if (in->data_len != (t.kind == KIND_MAKER ? MAKER_LOCK_DATA_LEN : LOCK_DATA_LEN)) return ERR_INVALID_INSTRUCTION;
  if (in->account_count < (t.kind == KIND_MAKER ? 8u : 7u)) return ERR_NOT_ENOUGH_ACCOUNTS;
  t.hashlock = in->data + 2;
  t.recipient = in->data + 34;
  t.amount = read_u64(in->data + 66);
  t.expiry = (int64_t)read_u64(in->data + 74);
  t.lock_deadline = (int64_t)read_u64(in->data + 82);
  t.now = chain_time();
  t.taker_amount = t.kind == KIND_MAKER ? read_u64(in->data + 90) : 0;
  t.taker_mint = t.kind == KIND_MAKER ? in->data + 98 : NULL;
  t.taker_expiry = t.kind == KIND_MAKER ? (int64_t)read_u64(in->data + 130) : 0;

  RawAccount *initializer = in->accounts[0];
  RawAccount *escrow = in->accounts[1];
  RawAccount *vault = in->accounts[2];
  RawAccount *mint = in->accounts[3];
  RawAccount *source = in->accounts[4];
  TRY(check_signer(initializer));
  TRY(check_writable(initializer));
  TRY(check_writable(escrow));
  TRY(check_writable(vault));
  TRY(check_writable(source));
  TRY(check_token_program(in->accounts[5]));
  TRY(check_system_program(in->accounts[6]));
  TRY(check_lock_terms(&t));
  TRY(check_mint(mint));
  TRY(check_token_account(source, mint->key, initializer->key));
  if (token_amount(source) < t.amount) return ERR_INSUFFICIENT_FUNDS;
  if (t.kind == KIND_MAKER) TRY(check_taker_escrow(in->accounts[7], in->program_id, initializer->key, &t));

  uint8_t address[PUBKEY_BYTES];
  uint8_t escrow_bump;
  uint8_t vault_bump;
  TRY(derive_escrow(in, &t, address, &escrow_bump));
  if (!key_eq(address, escrow->key)) return ERR_INVALID_ESCROW_ADDRESS;
  TRY(check_unused(escrow, in->program_id));
  TRY(derive_vault(escrow->key, in->program_id, address, &vault_bump));
  if (!key_eq(address, vault->key)) return ERR_INVALID_VAULT_ADDRESS;
  TRY(check_unused(vault, in->program_id));

  /* Create the escrow, then write the fields the signer seeds are rebuilt from. */
  SolBytes creation_seeds[4];
  SolSignerSeeds creation_signer;
  if (t.kind == KIND_TAKER) {
    creation_seeds[0].addr = SEED_TAKER;
    creation_seeds[0].len = sizeof(SEED_TAKER);
    creation_seeds[1].addr = initializer->key;
    creation_seeds[1].len = PUBKEY_BYTES;
    creation_seeds[2].addr = t.hashlock;
    creation_seeds[2].len = PUBKEY_BYTES;
    creation_seeds[3].addr = &escrow_bump;
    creation_seeds[3].len = 1;
    creation_signer.len = 4;
  } else {
    creation_seeds[0].addr = SEED_MAKER;
    creation_seeds[0].len = sizeof(SEED_MAKER);
    creation_seeds[1].addr = in->accounts[7]->key;
    creation_seeds[1].len = PUBKEY_BYTES;
    creation_seeds[2].addr = &escrow_bump;
    creation_seeds[2].len = 1;
    creation_signer.len = 3;
  }
  creation_signer.addr = creation_seeds;
  SystemCall create_escrow = {initializer, escrow, &creation_signer};
  TRY(create_pda_account(&create_escrow, sizeof(Escrow), in->program_id));

  SolBytes vault_seeds[3] = {{SEED_VAULT, sizeof(SEED_VAULT)}, {escrow->key, PUBKEY_BYTES}, {&vault_bump, 1}};
  SolSignerSeeds vault_signer = {vault_seeds, 3};
  SystemCall create_vault = {initializer, vault, &vault_signer};
  TRY(create_pda_account(&create_vault, TOKEN_ACCOUNT_LEN, TOKEN_PROGRAM_ID));
  TRY(token_initialize_account(vault, mint, escrow->key));
  TRY(token_transfer(source, vault, initializer, t.amount, NULL));

  Escrow *e = (Escrow *)escrow->data;
  write_escrow(e, in, &t, escrow_bump, vault_bump);
  LOG("htlc: locked");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * redeem — anyone may submit; pays the recipient only, against the preimage, while now < expiry
 * accounts: 0 escrow (w), 1 vault (w), 2 recipient token account (w), 3 token program
 * data:     0 tag, 1 preimage[32]
 * ---------------------------------------------------------------------------------------------- */

static uint64_t check_preimage(const Escrow *e, const uint8_t *preimage) {
  SolBytes slice = {preimage, PUBKEY_BYTES};
  uint8_t hash[PUBKEY_BYTES];
  sol_sha256(&slice, 1, hash);
  return key_eq(hash, e->hashlock) ? 0 : ERR_PREIMAGE_MISMATCH;
}

static __attribute__((noinline)) uint64_t process_redeem(const Input *in) {
  if (in->data_len != REDEEM_DATA_LEN) return ERR_INVALID_INSTRUCTION;
  if (in->account_count < 4) return ERR_NOT_ENOUGH_ACCOUNTS;
  RawAccount *escrow = in->accounts[0];
  RawAccount *vault = in->accounts[1];
  RawAccount *destination = in->accounts[2];
  const uint8_t *preimage = in->data + 1;
  Escrow *e;
  TRY(check_writable(escrow));
  TRY(check_writable(vault));
  TRY(check_writable(destination));
  TRY(load_escrow(escrow, in->program_id, &e));
  TRY(check_vault(vault, e));
  TRY(check_token_program(in->accounts[3]));
  TRY(check_token_account(destination, e->mint, e->recipient));
  TRY(check_locked(e));
  if (chain_time() >= e->expiry) return ERR_ESCROW_EXPIRED;
  TRY(check_preimage(e, preimage));

  EscrowSigner s;
  escrow_signer(e, &s);
  TRY(token_transfer(vault, destination, escrow, e->amount, &s.signer));
  /* Revealed on chain for the counterparty; stays readable until the initializer closes. */
  copy32(e->preimage, preimage);
  e->status = STATUS_REDEEMED;
  LOG("htlc: redeemed");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * refund — anyone may submit once now >= expiry; pays the initializer only
 * accounts: 0 escrow (w), 1 vault (w), 2 initializer token account (w), 3 token program
 * cancel — the recipient signs, any time before a redeem; pays the initializer only
 * accounts: 0 recipient (signer), 1 escrow (w), 2 vault (w), 3 initializer token account (w),
 *           4 token program
 * ---------------------------------------------------------------------------------------------- */

/* Shared tail of refund and cancel: the whole amount back to the initializer's own token account. */
static uint64_t return_to_initializer(RawAccount *escrow, Escrow *e, RawAccount *vault, RawAccount *destination,
                                      uint8_t status) {
  EscrowSigner s;
  escrow_signer(e, &s);
  TRY(token_transfer(vault, destination, escrow, e->amount, &s.signer));
  e->status = status;
  return 0;
}

static __attribute__((noinline)) uint64_t process_refund(const Input *in) {
  if (in->data_len != 1) return ERR_INVALID_INSTRUCTION;
  if (in->account_count < 4) return ERR_NOT_ENOUGH_ACCOUNTS;
  RawAccount *escrow = in->accounts[0];
  RawAccount *vault = in->accounts[1];
  RawAccount *destination = in->accounts[2];
  Escrow *e;
  TRY(check_writable(escrow));
  TRY(check_writable(vault));
  TRY(check_writable(destination));
  TRY(load_escrow(escrow, in->program_id, &e));
  TRY(check_vault(vault, e));
  TRY(check_token_program(in->accounts[3]));
  TRY(check_token_account(destination, e->mint, e->initializer));
  TRY(check_locked(e));
  if (chain_time() < e->expiry) return ERR_ESCROW_NOT_EXPIRED;
  TRY(return_to_initializer(escrow, e, vault, destination, STATUS_REFUNDED));
  LOG("htlc: refunded");
  return 0;
}

static __attribute__((noinline)) uint64_t process_cancel(const Input *in) {
  if (in->data_len != 1) return ERR_INVALID_INSTRUCTION;
  if (in->account_count < 5) return ERR_NOT_ENOUGH_ACCOUNTS;
  RawAccount *recipient = in->accounts[0];
  RawAccount *escrow = in->accounts[1];
  RawAccount *vault = in->accounts[2];
  RawAccount *destination = in->accounts[3];
  Escrow *e;
  TRY(check_signer(recipient));
  TRY(check_writable(escrow));
  TRY(check_writable(vault));
  TRY(check_writable(destination));
  TRY(load_escrow(escrow, in->program_id, &e));
  if (!key_eq(recipient->key, e->recipient)) return ERR_NOT_RECIPIENT;
  TRY(check_vault(vault, e));
  TRY(check_token_program(in->accounts[4]));
  TRY(check_token_account(destination, e->mint, e->initializer));
  TRY(check_locked(e));
  TRY(return_to_initializer(escrow, e, vault, destination, STATUS_CANCELLED));
  LOG("htlc: cancelled");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * close — the initializer signs once the escrow is settled; all rent goes back to the initializer
 * accounts: 0 initializer (signer, w), 1 escrow (w), 2 vault (w), 3 token program,
 *           [4 initializer token account (w) — receives tokens someone sent to the vault afterwards]
 * ---------------------------------------------------------------------------------------------- */

static __attribute__((noinline)) uint64_t process_close(const Input *in) {
  if (in->data_len != 1) return ERR_INVALID_INSTRUCTION;
  if (in->account_count < 4) return ERR_NOT_ENOUGH_ACCOUNTS;
  RawAccount *initializer = in->accounts[0];
  RawAccount *escrow = in->accounts[1];
  RawAccount *vault = in->accounts[2];
  Escrow *e;
  TRY(check_signer(initializer));
  TRY(check_writable(initializer));
  TRY(check_writable(escrow));
  TRY(check_writable(vault));
  TRY(load_escrow(escrow, in->program_id, &e));
  if (!key_eq(initializer->key, e->initializer)) return ERR_NOT_INITIALIZER;
  TRY(check_vault(vault, e));
  TRY(check_token_program(in->accounts[3]));
  if (e->status == STATUS_LOCKED) return ERR_ESCROW_NOT_SETTLED;

  EscrowSigner s;
  escrow_signer(e, &s);
  /* Anyone can send tokens to a vault; a leftover balance would block CloseAccount forever, so it
   * is swept to the initializer's token account when one is passed. Wrapped SOL closes anyway. */
  uint64_t leftover = token_amount(vault);
  bool native = vault->data[109] != 0; /* is_native COption tag */
  if (leftover != 0 && !native) {
    if (in->account_count < 5) return ERR_VAULT_NOT_EMPTY;
    RawAccount *destination = in->accounts[4];
    TRY(check_writable(destination));
    TRY(check_token_account(destination, e->mint, e->initializer));
    TRY(token_transfer(vault, destination, escrow, leftover, &s.signer));
  }
  TRY(token_close_account(vault, initializer, escrow, &s.signer));

  /* Delete the escrow the way the runtime expects: lamports out, data emptied, owner handed back. */
  uint64_t lamports = escrow->lamports;
  if (initializer->lamports > UINT64_MAX - lamports) return ERR_ARITHMETIC_OVERFLOW;
  initializer->lamports += lamports;
  escrow->lamports = 0;
  zero_bytes(escrow->data, sizeof(Escrow));
  escrow->data_len = 0;
  zero_bytes(escrow->owner, PUBKEY_BYTES);
  LOG("htlc: closed");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Entrypoint
 * ---------------------------------------------------------------------------------------------- */

static uint64_t dispatch(const Input *in) {
  if (in->data_len < 1) return ERR_INVALID_INSTRUCTION;
  switch (in->data[0]) {
    case IX_LOCK:
      return process_lock(in);
    case IX_REDEEM:
      return process_redeem(in);
    case IX_REFUND:
      return process_refund(in);
    case IX_CANCEL:
      return process_cancel(in);
    case IX_CLOSE:
      return process_close(in);
    default:
      return ERR_INVALID_INSTRUCTION;
  }
}

uint64_t entrypoint(const uint8_t *input) {
  Input in;
  parse_input(input, &in);
  uint64_t err = dispatch(&in);
  if (err >= ERR_PREIMAGE_MISMATCH && err < ERR_END) log_error(err);
  return err;
}
