/*
 * What a program built like programs/htlc needs besides the ABI (sbf.h): walking the serialized
 * input, byte helpers that stay loops under -fno-builtin, the SPL Token layouts, and the SPL Token
 * and System program CPIs a program-owned vault needs. Everything is `static`, so a program pays
 * only for what it calls. Nothing here knows a program's error codes: a failed CPI answers the
 * callee's error, and the few checks that can fail answer false for the caller to name.
 *
 * The includer defines MAX_ACCOUNTS (the most accounts any of its instructions reads) first.
 */
#ifndef SBF_RUNTIME_H
#define SBF_RUNTIME_H

#include "sbf.h"

#ifndef MAX_ACCOUNTS
#error "define MAX_ACCOUNTS before including runtime.h"
#endif

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

/* TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA */
static const uint8_t TOKEN_PROGRAM_ID[PUBKEY_BYTES] = {
    0x06, 0xdd, 0xf6, 0xe1, 0xd7, 0x65, 0xa1, 0x93, 0xd9, 0xcb, 0xe1, 0x46, 0xce, 0xeb, 0x79, 0xac,
    0x1c, 0xb4, 0x85, 0xed, 0x5f, 0x5b, 0x37, 0x91, 0x3a, 0x8c, 0xf5, 0x85, 0x7e, 0xff, 0x00, 0xa9};
/* 11111111111111111111111111111111 */
static const uint8_t SYSTEM_PROGRAM_ID[PUBKEY_BYTES] = {0};

#define TRY(expr)               \
  do {                          \
    uint64_t err_ = (expr);     \
    if (err_ != 0) return err_; \
  } while (0)

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
 * Bytes (loops rather than memcpy/memcmp: -fno-builtin keeps them loops, and no libc is linked)
 * ---------------------------------------------------------------------------------------------- */

static bool key_eq(const uint8_t *a, const uint8_t *b) {
  uint8_t diff = 0;
  for (int i = 0; i < PUBKEY_BYTES; i++) diff |= a[i] ^ b[i];
  return diff == 0;
}

/* Byte-wise order of two keys: <0, 0, >0 as memcmp. */
static int key_cmp(const uint8_t *a, const uint8_t *b) {
  for (int i = 0; i < PUBKEY_BYTES; i++) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

static void copy32(uint8_t *dst, const uint8_t *src) {
  for (int i = 0; i < PUBKEY_BYTES; i++) dst[i] = src[i];
}

/* Instruction data is not aligned; assemble little-endian integers byte by byte. */
static uint64_t read_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

static uint16_t read_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static void write_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t token_amount(const RawAccount *token_account) {
  return *(const uint64_t *)(token_account->data + TOKEN_ACCOUNT_AMOUNT);
}

/* ------------------------------------------------------------------------------------------------
 * Unsigned 128-bit arithmetic on two u64 halves: stock clang lowers __int128 multiplication and
 * division to compiler-rt calls (__multi3, __udivti3) the loader does not provide.
 * ---------------------------------------------------------------------------------------------- */

typedef struct {
  uint64_t hi;
  uint64_t lo;
} U128;

/* a × b exactly, from four 32×32-bit products. */
static U128 mul_64x64(uint64_t a, uint64_t b) {
  uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
  uint64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
  uint64_t p0 = a_lo * b_lo;
  uint64_t p1 = a_lo * b_hi;
  uint64_t p2 = a_hi * b_lo;
  uint64_t p3 = a_hi * b_hi;
  /* Three terms below 2^32 each: the sum cannot overflow 64 bits. */
  uint64_t mid = (p0 >> 32) + (p1 & 0xffffffffu) + (p2 & 0xffffffffu);
  U128 r;
  r.lo = (p0 & 0xffffffffu) | (mid << 32);
  r.hi = p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
  return r;
}

/* floor(n / d) for d > 0 and n.hi < d (so the quotient fits in 64 bits): restoring long division,
 * one quotient bit per step. The remainder stays below d; a bit shifted out of it means the true
 * value is at least 2^64 > d, and the subtraction modulo 2^64 is then still exact. */
static uint64_t div_128_by_64(U128 n, uint64_t d) {
  uint64_t rem = n.hi;
  uint64_t q = 0;
  for (int i = 63; i >= 0; i--) {
    uint64_t carry = rem >> 63;
    rem = (rem << 1) | ((n.lo >> i) & 1);
    q <<= 1;
    if (carry != 0 || rem >= d) {
      rem -= d;
      q |= 1;
    }
  }
  return q;
}

/* ------------------------------------------------------------------------------------------------
 * Account checks that answer yes or no (the caller names the error)
 * ---------------------------------------------------------------------------------------------- */

static bool is_token_program(const RawAccount *a) { return key_eq(a->key, TOKEN_PROGRAM_ID); }

static bool is_system_program(const RawAccount *a) { return key_eq(a->key, SYSTEM_PROGRAM_ID); }

/* An initialized mint of the classic token program. */
static bool is_mint(const RawAccount *a) {
  return key_eq(a->owner, TOKEN_PROGRAM_ID) && a->data_len == MINT_LEN && a->data[MINT_IS_INITIALIZED] == 1;
}

/* An initialized, unfrozen token account of the classic token program (frozen is state 2). */
static bool is_token_account(const RawAccount *a) {
  return key_eq(a->owner, TOKEN_PROGRAM_ID) && a->data_len == TOKEN_ACCOUNT_LEN &&
         a->data[TOKEN_ACCOUNT_STATE] == TOKEN_STATE_INITIALIZED;
}

/* A fresh address: nothing allocated and no owner but the System program. */
static bool is_unused(const RawAccount *a) { return key_eq(a->owner, SYSTEM_PROGRAM_ID) && a->data_len == 0; }

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
 * signer (signer == NULL) or as the calling program's PDA (signer seeds given). */
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

/* SPL Token MintTo (7): `amount` of `mint` into `to`, the mint authority signing as the calling program's
 * PDA (signer seeds given). */
static __attribute__((noinline, unused)) uint64_t token_mint_to(RawAccount *mint, RawAccount *to, RawAccount *authority,
                                                         uint64_t amount, const SolSignerSeeds *signer) {
  uint8_t data[9];
  data[0] = 7;
  write_u64(data + 1, amount);
  SolAccountMeta metas[3] = {{mint->key, true, false}, {to->key, true, false}, {authority->key, false, true}};
  SolAccountInfo infos[3];
  account_info(mint, &infos[0]);
  account_info(to, &infos[1]);
  account_info(authority, &infos[2]);
  SolInstruction ix = {TOKEN_PROGRAM_ID, metas, 3, data, sizeof(data)};
  return sol_invoke_signed_c(&ix, infos, 3, signer, signer ? 1 : 0);
}

/* SPL Token Burn (8): `amount` out of `from` (and the mint's supply), `authority` signing as the calling
 * program's PDA. */
static __attribute__((noinline, unused)) uint64_t token_burn(RawAccount *from, RawAccount *mint, RawAccount *authority,
                                                             uint64_t amount, const SolSignerSeeds *signer) {
  uint8_t data[9];
  data[0] = 8;
  write_u64(data + 1, amount);
  SolAccountMeta metas[3] = {{from->key, true, false}, {mint->key, true, false}, {authority->key, false, true}};
  SolAccountInfo infos[3];
  account_info(from, &infos[0]);
  account_info(mint, &infos[1]);
  account_info(authority, &infos[2]);
  SolInstruction ix = {TOKEN_PROGRAM_ID, metas, 3, data, sizeof(data)};
  return sol_invoke_signed_c(&ix, infos, 3, signer, signer ? 1 : 0);
}

/* SPL Token InitializeAccount3 (18): `account`, of `mint`, whose owner (authority) is `owner`. */
static __attribute__((noinline)) uint64_t token_initialize_account(RawAccount *account, RawAccount *mint,
                                                                    const uint8_t *owner) {
  uint8_t data[1 + PUBKEY_BYTES];
  data[0] = 18;
  copy32(data + 1, owner);
  SolAccountMeta metas[2] = {{account->key, true, false}, {mint->key, false, false}};
  SolAccountInfo infos[2];
  account_info(account, &infos[0]);
  account_info(mint, &infos[1]);
  SolInstruction ix = {TOKEN_PROGRAM_ID, metas, 2, data, sizeof(data)};
  return sol_invoke_signed_c(&ix, infos, 2, NULL, 0);
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

/* The rent-exempt minimum for `space` bytes, read from the Rent sysvar; false when it would overflow.
 * The threshold is an f64 (2.0 in practice); it is multiplied exactly in integers, truncating like
 * the runtime's `as u64`. */
static bool rent_exempt_minimum(uint64_t space, uint64_t *out) {
  SolRent rent;
  sol_get_rent_sysvar(&rent);
  if ((rent.lamports_per_byte_year >> 32) != 0 || (space >> 16) != 0) return false;
  uint64_t base = (ACCOUNT_STORAGE_OVERHEAD + space) * rent.lamports_per_byte_year;
  uint64_t bits = rent.exemption_threshold_bits;
  int64_t exponent = (int64_t)((bits >> 52) & 0x7ff);
  if ((bits >> 63) != 0 || exponent == 0) {
    *out = 0;
    return true;
  }
  uint64_t mantissa = (bits & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52);
  exponent -= 1075;
  while ((mantissa & 1) == 0 && exponent < 0) {
    mantissa >>= 1;
    exponent++;
  }
  if ((base >> 32) != 0 || (mantissa >> 32) != 0) return false;
  uint64_t value = base * mantissa;
  if (exponent >= 0) {
    if (exponent > 31 || (value >> (63 - exponent)) != 0) return false;
    value <<= exponent;
  } else {
    value = exponent < -63 ? 0 : value >> -exponent;
  }
  *out = value;
  return true;
}

/* Creates the PDA `target` with `space` bytes owned by `owner`, rent paid by `payer`; `overflow` is
 * the caller's error for rent arithmetic that does not fit. An address someone pre-funded with
 * lamports (to block CreateAccount) is topped up, allocated and assigned instead. */
static __attribute__((noinline)) uint64_t create_pda_account(const SystemCall *call, uint64_t space,
                                                             const uint8_t *owner, uint64_t overflow) {
  uint64_t rent;
  if (!rent_exempt_minimum(space, &rent)) return overflow;
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

#endif
