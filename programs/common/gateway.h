/*
 * What programs/gateway-minter and programs/gateway-wallet share: the Anchor framework's error numbers for
 * the account checks Anchor would make in Circle's programs, Borsh (little-endian) and Gateway message
 * (big-endian) integers, Borsh vectors of keys inside a fixed-size account, and the #[event_cpi] accounts.
 *
 * The includer defines MAX_ACCOUNTS first (see runtime.h).
 */
#define MAX_TOKENS 10 /* both programs' supported tokens, as Circle's */
#ifndef GATEWAY_COMMON_H
#define GATEWAY_COMMON_H

/* runtime.h and this header serve several programs; a helper one program leaves unused is no mistake. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#include "runtime.h"

/* anchor_lang::error::ErrorCode: the framework's own refusals, with the numbers Anchor gives them. */
enum {
  ANCHOR_INSTRUCTION_FALLBACK_NOT_FOUND = 101,
  ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE = 102,
  ANCHOR_CONSTRAINT_MUT = 2000,
  ANCHOR_CONSTRAINT_SEEDS = 2006,
  ANCHOR_ACCOUNT_DISCRIMINATOR_MISMATCH = 3002,
  ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS = 3005,
  ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM = 3007,
  ANCHOR_INVALID_PROGRAM_ID = 3008,
  ANCHOR_ACCOUNT_NOT_SIGNER = 3010,
  ANCHOR_ACCOUNT_NOT_INITIALIZED = 3012,
};

/* "__event_authority": the PDA Anchor's emit_cpi! signs its self-invocation with. */
static const uint8_t SEED_EVENT_AUTHORITY[] = {'_', '_', 'e', 'v', 'e', 'n', 't', '_', 'a', 'u', 't',
                                               'h', 'o', 'r', 'i', 't', 'y'};

static uint32_t read_u32_le(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void write_u32_le(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t read_u32_be(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static uint64_t read_u64_be(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
  return v;
}

static bool is_zero32(const uint8_t *p) {
  uint8_t any = 0;
  for (int i = 0; i < PUBKEY_BYTES; i++) any |= p[i];
  return any == 0;
}

static void copy_bytes(uint8_t *dst, const uint8_t *src, uint64_t n) {
  for (uint64_t i = 0; i < n; i++) dst[i] = src[i];
}

/* Shifts bytes [from, end) right by `by` within `data` (the caller has checked end + by fits). */
static void shift_right(uint8_t *data, uint64_t from, uint64_t end, uint64_t by) {
  for (uint64_t i = end; i > from; i--) data[i - 1 + by] = data[i - 1];
}

/* The index of `key` in a Borsh Vec<Pubkey> whose elements start at `elements`, or -1. */
static int64_t key_index(const uint8_t *elements, uint32_t count, const uint8_t *key) {
  for (uint32_t i = 0; i < count; i++) {
    if (key_eq(elements + (uint64_t)i * PUBKEY_BYTES, key)) return i;
  }
  return -1;
}

/*
 * Appends `size` bytes to the Borsh vector whose u32 length prefix is at `vec_at` in `data`, moving what
 * follows the vector (up to `end`, the serialized end) right; `capacity` is the account's data length.
 * False when the bytes do not fit.
 */
typedef struct {
  uint8_t *data;
  uint64_t capacity;
  uint64_t end;
} Serialized;

static bool vec_push(const Serialized *s, uint64_t vec_at, uint64_t size, const uint8_t *element) {
  uint32_t count = read_u32_le(s->data + vec_at);
  uint64_t at = vec_at + 4 + (uint64_t)count * size;
  if (s->end + size > s->capacity || at > s->end) return false;
  shift_right(s->data, at, s->end, size);
  copy_bytes(s->data + at, element, size);
  write_u32_le(s->data + vec_at, count + 1);
  return true;
}

/* The #[event_cpi] pair Anchor appends to an instruction's accounts: the event authority PDA and the
 * program itself. Our programs log instead of emitting events, but take and check the same accounts so
 * that a client's account list is the one Circle's programs expect. */
static uint64_t check_event_accounts(const RawAccount *authority, const RawAccount *program,
                                     const uint8_t *program_id) {
  uint8_t address[PUBKEY_BYTES];
  uint8_t bump;
  /* Field by field: a wholly constant initializer would become a .rodata template holding a pointer,
   * a data relocation our packager does not write. */
  SolBytes seed;
  seed.addr = SEED_EVENT_AUTHORITY;
  seed.len = sizeof(SEED_EVENT_AUTHORITY);
  if (sol_try_find_program_address(&seed, 1, program_id, address, &bump) != 0) return ANCHOR_CONSTRAINT_SEEDS;
  if (!key_eq(address, authority->key)) return ANCHOR_CONSTRAINT_SEEDS;
  if (!key_eq(program->key, program_id)) return ANCHOR_INVALID_PROGRAM_ID;
  return 0;
}

/* Anchor's Signer, `mut` and Program<…> constraints. */
static uint64_t check_signer(const RawAccount *a) { return a->is_signer ? 0 : ANCHOR_ACCOUNT_NOT_SIGNER; }

static uint64_t check_writable(const RawAccount *a) { return a->is_writable ? 0 : ANCHOR_CONSTRAINT_MUT; }

static uint64_t check_program(const RawAccount *a, const uint8_t *id) {
  return key_eq(a->key, id) ? 0 : ANCHOR_INVALID_PROGRAM_ID;
}

/* `key` is the PDA of `seeds` under `program_id`, found with its canonical bump (written to `bump`). */
static bool is_found_pda(const SolBytes *seeds, uint64_t count, const uint8_t *program_id, const uint8_t *key,
                         uint8_t *bump) {
  uint8_t address[PUBKEY_BYTES];
  return sol_try_find_program_address(seeds, count, program_id, address, bump) == 0 && key_eq(address, key);
}

/* `key` is the PDA of `seeds` (their last one the bump) under `program_id`. */
static bool is_created_pda(const SolBytes *seeds, uint64_t count, const uint8_t *program_id, const uint8_t *key) {
  uint8_t address[PUBKEY_BYTES];
  return sol_create_program_address(seeds, count, program_id, address) == 0 && key_eq(address, key);
}

/* ------------------------------------------------------------------------------------------------
 * The program's state account (GatewayMinter, GatewayWallet): a 2-byte discriminator, then its bump, at
 * the PDA [seed, bump]. Both programs take the same initialize and add_token accounts around it.
 * ---------------------------------------------------------------------------------------------- */

#define STATE_BUMP 2

/* Account<State>, before its variable part is parsed: owned by us and carrying our discriminator. */
static uint64_t check_state_owner(const RawAccount *a, const uint8_t *program_id, const uint8_t *discriminator) {
  if (!key_eq(a->owner, program_id)) return ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM;
  if (a->data_len < 2) return ANCHOR_ACCOUNT_NOT_INITIALIZED;
  if (a->data[0] != discriminator[0] || a->data[1] != discriminator[1]) return ANCHOR_ACCOUNT_DISCRIMINATOR_MISMATCH;
  return 0;
}

/* …and once parsed: seeds = [seed], bump = state.bump. */
static uint64_t check_state_address(const RawAccount *a, const uint8_t *program_id, const uint8_t *seed,
                                    uint64_t seed_len) {
  SolBytes seeds[2] = {{seed, seed_len}, {a->data + STATE_BUMP, 1}};
  return is_created_pda(seeds, 2, program_id, a->key) ? 0 : ANCHOR_CONSTRAINT_SEEDS;
}

/* The accounts initialize and add_token begin with: 0 payer (s, w), 1 authority (s), 2 state (w). */
static uint64_t check_admin_accounts(const Input *in) {
  TRY(check_signer(in->accounts[0]));
  TRY(check_writable(in->accounts[0]));
  TRY(check_signer(in->accounts[1]));
  return check_writable(in->accounts[2]);
}

/* initialize — accounts: 0 payer (s, w), 1 upgrade authority (s), 2 state (w, the PDA [seed], not yet
 * created), 3 program data, 4 this program, 5 system program, 6 event authority, 7 this program.
 * Checks them and finds the state's bump. */
static __attribute__((noinline)) uint64_t check_initialize(const Input *in, const SolBytes *seed, uint8_t *bump) {
  if (in->account_count < 8) return ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS;
  TRY(check_admin_accounts(in));
  TRY(check_program(in->accounts[4], in->program_id));
  TRY(check_program(in->accounts[5], SYSTEM_PROGRAM_ID));
  TRY(check_event_accounts(in->accounts[6], in->accounts[7], in->program_id));
  if (!is_found_pda(seed, 1, in->program_id, in->accounts[2]->key, bump)) return ANCHOR_CONSTRAINT_SEEDS;
  /* Anchor's `init`: the account must not exist yet (a second initialize fails in the System program). */
  if (!is_unused(in->accounts[2])) return ANCHOR_CONSTRAINT_SEEDS;
  return 0;
}

/* Creates the state (rent from the payer) with `space` bytes, its discriminator and bump written. */
static __attribute__((noinline)) uint64_t create_state(const Input *in, const SolBytes *seed, uint8_t bump,
                                                       uint64_t space, const uint8_t *discriminator) {
  RawAccount *state = in->accounts[2];
  SolBytes seeds[2] = {*seed, {&bump, 1}};
  SolSignerSeeds signer = {seeds, 2};
  SystemCall create = {in->accounts[0], state, &signer};
  TRY(create_pda_account(&create, space, in->program_id, ANCHOR_CONSTRAINT_SEEDS));
  state->data[0] = discriminator[0];
  state->data[1] = discriminator[1];
  state->data[STATE_BUMP] = bump;
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Custody token accounts: one per supported mint at the PDA [custody seed, mint], the state PDA their
 * authority, its bump kept in the state's Vec<u8> after the Vec<Pubkey> of mints. The minter answers a
 * bad custody account with its own errors, the wallet with Anchor's constraints: CustodyRules says which.
 * ---------------------------------------------------------------------------------------------- */

typedef struct {
  const uint8_t *seed; /* "gateway_minter_custody" / "gateway_wallet_custody" */
  uint64_t seed_len;
  uint64_t not_token_account; /* an existing custody that is no token account */
  uint64_t wrong_mint;        /* add_token's existing custody: no token account, or of another mint */
  uint64_t wrong_owner;       /* its authority is not the state */
  uint64_t wrong_address;     /* not at the custody PDA, or its creation failed */
  uint64_t not_supported;     /* its mint is not a supported token */
  uint64_t too_many_tokens;   /* add_token: MAX_TOKENS are supported already */
} CustodyRules;

/* The state's supported mints (the elements of its Vec<Pubkey>) and their custody bumps (of its Vec<u8>). */
typedef struct {
  const uint8_t *mints;
  uint32_t count;
  const uint8_t *bumps;
} Tokens;

/* The custody token account as the instructions that pay from it accept it: a token account whose
 * authority is the state, of a supported mint, at the PDA of the bump recorded for that mint. */
static __attribute__((noinline)) uint64_t check_custody(const CustodyRules *r, const Tokens *t,
                                                       const RawAccount *custody, const uint8_t *state_key,
                                                       const uint8_t *program_id) {
  if (!is_token_account(custody)) return r->not_token_account;
  if (!key_eq(custody->data + TOKEN_ACCOUNT_OWNER, state_key)) return r->wrong_owner;
  const uint8_t *mint = custody->data + TOKEN_ACCOUNT_MINT;
  int64_t index = key_index(t->mints, t->count, mint);
  if (index < 0) return r->not_supported;
  SolBytes seeds[3] = {{r->seed, r->seed_len}, {mint, PUBKEY_BYTES}, {t->bumps + index, 1}};
  return is_created_pda(seeds, 3, program_id, custody->key) ? 0 : r->wrong_address;
}

/* add_token's custody, init_if_needed: an existing one must already be what `init` would have made. */
static __attribute__((noinline)) uint64_t create_custody(const Input *in, const CustodyRules *r, uint8_t bump) {
  RawAccount *mint = in->accounts[3];
  RawAccount *custody = in->accounts[4];
  if (key_eq(custody->owner, TOKEN_PROGRAM_ID)) {
    if (!is_token_account(custody) || !key_eq(custody->data + TOKEN_ACCOUNT_MINT, mint->key)) return r->wrong_mint;
    if (!key_eq(custody->data + TOKEN_ACCOUNT_OWNER, in->accounts[2]->key)) return r->wrong_owner;
    return 0;
  }
  SolBytes seeds[3] = {{r->seed, r->seed_len}, {mint->key, PUBKEY_BYTES}, {&bump, 1}};
  SolSignerSeeds signer = {seeds, 3};
  SystemCall create = {in->accounts[0], custody, &signer};
  TRY(create_pda_account(&create, TOKEN_ACCOUNT_LEN, TOKEN_PROGRAM_ID, r->wrong_address));
  return token_initialize_account(custody, mint, in->accounts[2]->key);
}

/* add_token — accounts: 0 payer (s, w), 1 token controller (s), 2 state (w), 3 token mint, 4 custody
 * token account (w, created here if absent), 5 token program, 6 system program, 7 event authority,
 * 8 this program. After the state is loaded and the controller checked: the rest of the accounts, and
 * the custody made; its bump goes to `bump`. */
static __attribute__((noinline)) uint64_t add_custody(const Input *in, const CustodyRules *r, uint8_t *bump) {
  RawAccount *mint = in->accounts[3];
  RawAccount *custody = in->accounts[4];
  if (!is_mint(mint)) return ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM;
  TRY(check_writable(custody));
  TRY(check_program(in->accounts[5], TOKEN_PROGRAM_ID));
  TRY(check_program(in->accounts[6], SYSTEM_PROGRAM_ID));
  TRY(check_event_accounts(in->accounts[7], in->accounts[8], in->program_id));
  SolBytes seeds[2] = {{r->seed, r->seed_len}, {mint->key, PUBKEY_BYTES}};
  if (!is_found_pda(seeds, 2, in->program_id, custody->key, bump)) return ANCHOR_CONSTRAINT_SEEDS;
  return create_custody(in, r, *bump);
}

/* Appends `mint` to the state's Vec<Pubkey> at `tokens_at` and `bump` to the Vec<u8> right after it;
 * false when they do not fit. */
static bool push_token(Serialized *s, uint64_t tokens_at, const uint8_t *mint, uint8_t bump) {
  uint64_t bumps_at = tokens_at + 4 + (uint64_t)read_u32_le(s->data + tokens_at) * PUBKEY_BYTES;
  if (!vec_push(s, tokens_at, PUBKEY_BYTES, mint)) return false;
  /* The tokens vector grew by one key: the bumps vector now starts 32 bytes later. */
  s->end += PUBKEY_BYTES;
  return vec_push(s, bumps_at + PUBKEY_BYTES, 1, &bump);
}

/* add_token's last steps, once the state is loaded and its token controller checked: the accounts, the
 * custody made, then the mint supported (nothing more to do when it already is). `t` lists the supported
 * mints of the state serialized in `s`, their Vec<Pubkey> at `tokens_at`. */
static __attribute__((noinline)) uint64_t add_token(const Input *in, const CustodyRules *r, const Tokens *t,
                                                    Serialized *s, uint64_t tokens_at) {
  const uint8_t *mint = in->accounts[3]->key;
  uint8_t bump;
  TRY(add_custody(in, r, &bump));
  if (key_index(t->mints, t->count, mint) >= 0) return 0;
  if (t->count >= MAX_TOKENS) return r->too_many_tokens;
  return push_token(s, tokens_at, mint, bump) ? 0 : r->too_many_tokens;
}

/* ------------------------------------------------------------------------------------------------
 * The owner's lists of EVM keys (the minter's attesters, the wallet's burn signers): add_attester and
 * add_burn_signer — accounts: 0 owner (s), 1 state (w), 2 event authority, 3 this program
 * data: [namespace, instruction], key [32] (an EVM address, left-padded with 12 zero bytes)
 * ---------------------------------------------------------------------------------------------- */

static uint64_t check_owner_accounts(const Input *in) {
  if (in->data_len != 2 + PUBKEY_BYTES) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;
  if (in->account_count < 4) return ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS;
  TRY(check_signer(in->accounts[0]));
  return check_writable(in->accounts[1]);
}

typedef struct {
  uint64_t max;     /* the most keys the list holds */
  uint64_t invalid; /* the zero key */
  uint64_t full;    /* no room for one more */
} KeyListRules;

/* Once the owner is checked: the event accounts, then the key added to the Vec<Pubkey> at `vec_at`
 * (nothing to do when it is there already). */
static __attribute__((noinline)) uint64_t add_key(const Input *in, const KeyListRules *r, const Serialized *s,
                                                  uint64_t vec_at) {
  const uint8_t *key = in->data + 2;
  TRY(check_event_accounts(in->accounts[2], in->accounts[3], in->program_id));
  if (is_zero32(key)) return r->invalid;
  uint32_t count = read_u32_le(s->data + vec_at);
  if (key_index(s->data + vec_at + 4, count, key) >= 0) return 0;
  if (count >= r->max) return r->full;
  return vec_push(s, vec_at, PUBKEY_BYTES, key) ? 0 : r->full;
}

/* ------------------------------------------------------------------------------------------------
 * Used transfer spec hashes: the PDA ["used_transfer_spec_hash", hash] carries the program's used marker
 * once a mint (minter) or burn (wallet) of that transfer spec went through; a second one fails here.
 * ---------------------------------------------------------------------------------------------- */

/* "used_transfer_spec_hash" */
static const uint8_t SEED_USED_HASH[] = {'u', 's', 'e', 'd', '_', 't', 'r', 'a', 'n', 's', 'f', 'e',
                                         'r', '_', 's', 'p', 'e', 'c', '_', 'h', 'a', 's', 'h'};

typedef struct {
  const uint8_t *discriminator; /* the UsedTransferSpecHash account's */
  uint64_t invalid_account;     /* not the hash's PDA, or its creation failed */
  uint64_t already_used;
} UsedHashRules;

/* The account must be the PDA the hash derives and not carry the marker; it is created (rent from the
 * payer, account 0) with the marker written. */
static __attribute__((noinline)) uint64_t mark_transfer_spec_hash(const Input *in, const UsedHashRules *r,
                                                                  const uint8_t *hash, RawAccount *account) {
  uint8_t bump;
  SolBytes seeds[3] = {{SEED_USED_HASH, sizeof(SEED_USED_HASH)}, {hash, 32}, {&bump, 1}};
  if (!is_found_pda(seeds, 2, in->program_id, account->key, &bump)) return r->invalid_account;
  if (account->data_len >= 2 && account->data[0] == r->discriminator[0] && account->data[1] == r->discriminator[1])
    return r->already_used;
  SolSignerSeeds signer = {seeds, 3};
  SystemCall create = {in->accounts[0], account, &signer};
  TRY(create_pda_account(&create, 2, in->program_id, r->invalid_account));
  account->data[0] = r->discriminator[0];
  account->data[1] = r->discriminator[1];
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Errors in the log
 * ---------------------------------------------------------------------------------------------- */

/* Anchor numbers a program's own errors from 6000, in declaration order. */
#define CUSTOM_ERROR_BASE 6000

typedef struct {
  const char *prefix; /* "gateway_minter: error " */
  uint64_t prefix_len;
  const char *names; /* one row of `width` chars (NUL-padded) per custom error */
  uint64_t width;
  uint64_t count;
} ErrorNames;

/* Logs a refusal: "<prefix><Name>" for one of the program's errors, else its number and "<prefix>Anchor". */
static __attribute__((noinline)) void log_refusal(const ErrorNames *e, uint64_t err) {
  char line[128];
  if (e->prefix_len + e->width > sizeof(line)) return;
  uint64_t n = 0;
  for (; n < e->prefix_len; n++) line[n] = e->prefix[n];
  const char *name = "Anchor";
  uint64_t width = 6;
  if (err >= CUSTOM_ERROR_BASE && err - CUSTOM_ERROR_BASE < e->count) {
    name = e->names + (err - CUSTOM_ERROR_BASE) * e->width;
    width = e->width;
  } else {
    sol_log_64_(err, 0, 0, 0, 0);
  }
  for (uint64_t i = 0; i < width && name[i] != 0; i++) line[n++] = name[i];
  sol_log_(line, n);
}

/* "\x19Ethereum Signed Message:\n32" (EIP-191 for a 32-byte message). */
static const uint8_t EIP191_PREFIX[28] = {0x19, 'E', 't', 'h', 'e', 'r', 'e', 'u', 'm', ' ', 'S', 'i', 'g', 'n',
                                          'e',  'd', ' ', 'M', 'e', 's', 's', 'a', 'g', 'e', ':', '\n', '3', '2'};
/* secp256k1's n / 2: a larger s is the malleable twin of a valid signature and is refused. */
static const uint8_t HALF_N[32] = {0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0xff, 0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4,
                                   0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0};

#define EVM_SIGNATURE_LENGTH 65

static bool is_high_s(const uint8_t *s) {
  for (int i = 0; i < 32; i++) {
    if (s[i] != HALF_N[i]) return s[i] > HALF_N[i];
  }
  return false;
}

/*
 * recover_evm_signer (shared/src/lib.rs) over ethereum_signed_message_hash(keccak256(message)): the EVM
 * address, as a bytes32 with 12 leading zero bytes, of the key that signed `message`. False for a signature
 * that is not 65 bytes, has v other than 27/28, a high s, or recovers no key.
 */
static __attribute__((noinline)) bool recover_evm_signer(const SolBytes *message, const uint8_t *signature,
                                                         uint64_t signature_len, uint8_t *signer) {
  if (signature_len != EVM_SIGNATURE_LENGTH) return false;
  uint8_t v = signature[64];
  if (v != 27 && v != 28) return false;
  if (is_high_s(signature + 32)) return false;
  uint8_t hash[32];
  sol_keccak256(message, 1, hash);
  SolBytes prefixed[2];
  prefixed[0].addr = EIP191_PREFIX;
  prefixed[0].len = sizeof(EIP191_PREFIX);
  prefixed[1].addr = hash;
  prefixed[1].len = 32;
  uint8_t digest[32];
  sol_keccak256(prefixed, 2, digest);
  uint8_t public_key[64];
  if (sol_secp256k1_recover(digest, v - 27, signature, public_key) != 0) return false;
  SolBytes key = {public_key, 64};
  sol_keccak256(&key, 1, signer);
  for (int i = 0; i < 12; i++) signer[i] = 0;
  return true;
}

/*
 * A Gateway program's entrypoint: parse the input, run the includer's `dispatch`, and log a refusal with
 * the includer's error names (ERROR_NAMES rows of ERROR_NAME_WIDTH, for ERR_INVALID_AUTHORITY … ERR_END).
 * A macro because those names are the program's own; `log_prefix` is "<program>: error ".
 */
#define GATEWAY_ENTRYPOINT(log_prefix)                 \
  uint64_t entrypoint(const uint8_t *input) {          \
    Input in;                                          \
    parse_input(input, &in);                           \
    uint64_t err = dispatch(&in);                      \
    if (err != 0) {                                    \
      /* Field by field: see check_event_accounts. */  \
      static const char prefix[] = log_prefix;         \
      ErrorNames names;                                \
      names.prefix = prefix;                           \
      names.prefix_len = sizeof(prefix) - 1;           \
      names.names = ERROR_NAMES[0];                    \
      names.width = ERROR_NAME_WIDTH;                  \
      names.count = ERR_END - ERR_INVALID_AUTHORITY;   \
      log_refusal(&names, err);                        \
    }                                                  \
    return err;                                        \
  }

#pragma clang diagnostic pop

#endif
