/*
 * GatewayWallet of our own, for the embedded chain: the Solana source of Circle Gateway as
 * circlefin/solana-gateway-contracts programs/gateway-wallet defines it, as far as deposits go. Same
 * discriminators, Borsh arguments, account orders, PDA seeds, state layouts and error numbers as Circle's,
 * so that a client's deposit bytes work against both: USDC moves into the wallet's custody PDA and the
 * depositor's balance is kept in its GatewayDeposit PDA ["gateway_deposit", mint, depositor]. What is left
 * out (gatewayBurn among it), and why: README.md.
 *
 * Built like programs/htlc (stock clang, -mcpu=v1, our own packager).
 */
#define MAX_ACCOUNTS 12
#include "../common/gateway.h"

#define IX_NAMESPACE 22
#define IX_DEPOSIT 0
#define IX_INITIALIZE 5
#define IX_ADD_TOKEN 12

static const uint8_t WALLET_DISCRIMINATOR[2] = {21, 0};
static const uint8_t DEPOSIT_DISCRIMINATOR[2] = {21, 1};

static const uint8_t SEED_WALLET[] = {'g', 'a', 't', 'e', 'w', 'a', 'y', '_', 'w', 'a', 'l', 'l', 'e', 't'};
static const uint8_t SEED_CUSTODY[] = {'g', 'a', 't', 'e', 'w', 'a', 'y', '_', 'w', 'a', 'l', 'l',
                                       'e', 't', '_', 'c', 'u', 's', 't', 'o', 'd', 'y'};
static const uint8_t SEED_DEPOSIT[] = {'g', 'a', 't', 'e', 'w', 'a', 'y', '_', 'd', 'e', 'p', 'o', 's', 'i', 't'};
static const uint8_t SEED_DENYLIST[] = {'d', 'e', 'n', 'y', 'l', 'i', 's', 't'};

#define MAX_TOKENS 10
#define MAX_BURN_SIGNERS 10
/* 2 + GatewayWallet::INIT_SPACE: bump, six keys, two u32, u64, bool, Vec<Pubkey>[10], Vec<u8>[10],
 * Vec<Pubkey>[10]. */
#define WALLET_SPACE (2 + 1 + 6 * 32 + 4 + 4 + 8 + 1 + (4 + 32 * MAX_TOKENS) + (4 + MAX_TOKENS) + (4 + 32 * MAX_BURN_SIGNERS))
/* 2 + GatewayDeposit::INIT_SPACE: bump, depositor, token_mint, three u64. */
#define DEPOSIT_SPACE (2 + 1 + 32 + 32 + 8 + 8 + 8)
#define WALLET_VERSION 1

/* GatewayWallet state offsets (Borsh). */
#define S_BUMP 2
#define S_OWNER 3
#define S_PENDING_OWNER 35
#define S_PAUSER 67
#define S_DENYLISTER 99
#define S_TOKEN_CONTROLLER 131
#define S_FEE_RECIPIENT 163
#define S_LOCAL_DOMAIN 195
#define S_VERSION 199
#define S_WITHDRAWAL_DELAY 203
#define S_PAUSED 211
#define S_TOKENS 212

/* GatewayDeposit offsets. */
#define D_BUMP 2
#define D_DEPOSITOR 3
#define D_TOKEN_MINT 35
#define D_AVAILABLE 67
#define D_WITHDRAWING 75
#define D_WITHDRAWAL_BLOCK 83

/* anchor_lang ErrorCode for token constraints. */
#define ANCHOR_CONSTRAINT_TOKEN_MINT 2014
#define ANCHOR_CONSTRAINT_TOKEN_OWNER 2015

/* GatewayWalletError (error.rs), from 6000 in declaration order. */
enum {
  ERR_INVALID_AUTHORITY = 6000,
  ERR_INVALID_PAUSER,
  ERR_INVALID_DENYLISTER,
  ERR_INVALID_TOKEN_CONTROLLER,
  ERR_PROGRAM_PAUSED,
  ERR_ACCOUNT_DENYLISTED,
  ERR_INVALID_BURN_SIGNER,
  ERR_BURN_SIGNER_LIMIT_EXCEEDED,
  ERR_MAX_TOKENS_SUPPORTED,
  ERR_TOKEN_NOT_SUPPORTED,
  ERR_INVALID_DEPOSITOR,
  ERR_INVALID_DEPOSIT_AMOUNT,
  ERR_INVALID_WITHDRAWAL_AMOUNT,
  ERR_INSUFFICIENT_DEPOSIT_BALANCE,
  ERR_NO_WITHDRAWAL_IN_PROGRESS,
  ERR_WITHDRAWAL_DELAY_NOT_ELAPSED,
  ERR_INVALID_WITHDRAWAL_DELAY,
  ERR_END
};

#define ERROR_NAME_WIDTH 28
static const char ERROR_NAMES[ERR_END - ERR_INVALID_AUTHORITY][ERROR_NAME_WIDTH] = {
    "InvalidAuthority",
    "InvalidPauser",
    "InvalidDenylister",
    "InvalidTokenController",
    "ProgramPaused",
    "AccountDenylisted",
    "InvalidBurnSigner",
    "BurnSignerLimitExceeded",
    "MaxTokensSupported",
    "TokenNotSupported",
    "InvalidDepositor",
    "InvalidDepositAmount",
    "InvalidWithdrawalAmount",
    "InsufficientDepositBalance",
    "NoWithdrawalInProgress",
    "WithdrawalDelayNotElapsed",
    "InvalidWithdrawalDelay",
};

static void log_error(uint64_t code) {
  static const char prefix[] = "gateway_wallet: error ";
  char line[sizeof(prefix) + ERROR_NAME_WIDTH];
  uint64_t n = 0;
  for (; n < sizeof(prefix) - 1; n++) line[n] = prefix[n];
  const char *name = ERROR_NAMES[code - ERR_INVALID_AUTHORITY];
  for (int i = 0; i < ERROR_NAME_WIDTH && name[i] != 0; i++) line[n++] = name[i];
  sol_log_(line, n);
}

static uint64_t check_signer(const RawAccount *a) { return a->is_signer ? 0 : ANCHOR_ACCOUNT_NOT_SIGNER; }

static uint64_t check_writable(const RawAccount *a) { return a->is_writable ? 0 : ANCHOR_CONSTRAINT_MUT; }

static uint64_t check_program(const RawAccount *a, const uint8_t *id) {
  return key_eq(a->key, id) ? 0 : ANCHOR_INVALID_PROGRAM_ID;
}

/* ------------------------------------------------------------------------------------------------
 * State
 * ---------------------------------------------------------------------------------------------- */

typedef struct {
  uint8_t *data;
  uint64_t capacity;
  uint32_t token_count;
  uint64_t bumps_at;
  uint64_t signers_at;
  uint64_t end;
} Wallet;

static bool parse_wallet(uint8_t *data, uint64_t capacity, Wallet *w) {
  w->data = data;
  w->capacity = capacity;
  if (capacity < S_TOKENS + 4) return false;
  w->token_count = read_u32_le(data + S_TOKENS);
  if (w->token_count > MAX_TOKENS) return false;
  w->bumps_at = S_TOKENS + 4 + (uint64_t)w->token_count * PUBKEY_BYTES;
  if (w->bumps_at + 4 > capacity || read_u32_le(data + w->bumps_at) != w->token_count) return false;
  w->signers_at = w->bumps_at + 4 + w->token_count;
  if (w->signers_at + 4 > capacity) return false;
  uint32_t signers = read_u32_le(data + w->signers_at);
  if (signers > MAX_BURN_SIGNERS) return false;
  w->end = w->signers_at + 4 + (uint64_t)signers * PUBKEY_BYTES;
  return w->end <= capacity;
}

/* Account<GatewayWallet>, seeds = [b"gateway_wallet"], bump = state.bump. */
static __attribute__((noinline)) uint64_t load_wallet(RawAccount *a, const uint8_t *program_id, Wallet *w) {
  if (!key_eq(a->owner, program_id)) return ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM;
  if (a->data_len < 2) return ANCHOR_ACCOUNT_NOT_INITIALIZED;
  if (a->data[0] != WALLET_DISCRIMINATOR[0] || a->data[1] != WALLET_DISCRIMINATOR[1])
    return ANCHOR_ACCOUNT_DISCRIMINATOR_MISMATCH;
  if (!parse_wallet(a->data, a->data_len, w)) return ANCHOR_ACCOUNT_DISCRIMINATOR_MISMATCH;
  uint8_t address[PUBKEY_BYTES];
  SolBytes seeds[2] = {{SEED_WALLET, sizeof(SEED_WALLET)}, {a->data + S_BUMP, 1}};
  if (sol_create_program_address(seeds, 2, program_id, address) != 0 || !key_eq(address, a->key))
    return ANCHOR_CONSTRAINT_SEEDS;
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * initialize — accounts: 0 payer (s, w), 1 upgrade authority (s), 2 gateway_wallet (w), 3 program data,
 * 4 this program, 5 system program, 6 event authority, 7 this program
 * data: [22, 5], local_domain u32, withdrawal_delay u64
 * As the minter's: no ProgramData to read here, the first caller becomes owner (README.md).
 * ---------------------------------------------------------------------------------------------- */

static __attribute__((noinline)) uint64_t process_initialize(const Input *in) {
  if (in->data_len != 2 + 4 + 8) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;
  if (in->account_count < 8) return ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS;
  RawAccount *payer = in->accounts[0];
  RawAccount *authority = in->accounts[1];
  RawAccount *state = in->accounts[2];
  TRY(check_signer(payer));
  TRY(check_writable(payer));
  TRY(check_signer(authority));
  TRY(check_writable(state));
  TRY(check_program(in->accounts[4], in->program_id));
  TRY(check_program(in->accounts[5], SYSTEM_PROGRAM_ID));
  TRY(check_event_accounts(in->accounts[6], in->accounts[7], in->program_id));
  uint8_t address[PUBKEY_BYTES];
  uint8_t bump;
  SolBytes seed; /* field by field: see check_event_accounts */
  seed.addr = SEED_WALLET;
  seed.len = sizeof(SEED_WALLET);
  if (sol_try_find_program_address(&seed, 1, in->program_id, address, &bump) != 0 || !key_eq(address, state->key))
    return ANCHOR_CONSTRAINT_SEEDS;
  if (!is_unused(state)) return ANCHOR_CONSTRAINT_SEEDS;
  uint64_t delay = read_u64(in->data + 6);
  if (delay == 0) return ERR_INVALID_WITHDRAWAL_DELAY;
  SolBytes seeds[2] = {seed, {&bump, 1}};
  SolSignerSeeds signer = {seeds, 2};
  SystemCall create = {payer, state, &signer};
  TRY(create_pda_account(&create, WALLET_SPACE, in->program_id, ANCHOR_CONSTRAINT_SEEDS));
  uint8_t *d = state->data;
  d[0] = WALLET_DISCRIMINATOR[0];
  d[1] = WALLET_DISCRIMINATOR[1];
  d[S_BUMP] = bump;
  copy32(d + S_OWNER, authority->key);
  copy32(d + S_PAUSER, authority->key);
  copy32(d + S_DENYLISTER, authority->key);
  copy32(d + S_TOKEN_CONTROLLER, authority->key);
  copy32(d + S_FEE_RECIPIENT, authority->key);
  write_u32_le(d + S_LOCAL_DOMAIN, read_u32_le(in->data + 2));
  write_u32_le(d + S_VERSION, WALLET_VERSION);
  write_u64(d + S_WITHDRAWAL_DELAY, delay);
  d[S_PAUSED] = 0;
  /* supported_tokens, custody bumps and burn signers: three empty vectors (the zeros already there). */
  LOG("gateway_wallet: initialized");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * add_token — accounts: 0 payer (s, w), 1 token controller (s), 2 gateway_wallet (w), 3 token mint,
 * 4 custody token account (w, PDA ["gateway_wallet_custody", mint]), 5 token program, 6 system program,
 * 7 event authority, 8 this program
 * data: [22, 12]
 * ---------------------------------------------------------------------------------------------- */

typedef struct {
  const Input *in;
  uint8_t bump;
} CustodyCreation;

static __attribute__((noinline)) uint64_t create_custody(const CustodyCreation *c) {
  const Input *in = c->in;
  RawAccount *mint = in->accounts[3];
  RawAccount *custody = in->accounts[4];
  if (key_eq(custody->owner, TOKEN_PROGRAM_ID)) {
    if (!is_token_account(custody) || !key_eq(custody->data + TOKEN_ACCOUNT_MINT, mint->key))
      return ANCHOR_CONSTRAINT_TOKEN_MINT;
    if (!key_eq(custody->data + TOKEN_ACCOUNT_OWNER, in->accounts[2]->key)) return ANCHOR_CONSTRAINT_TOKEN_OWNER;
    return 0;
  }
  SolBytes seeds[3] = {{SEED_CUSTODY, sizeof(SEED_CUSTODY)}, {mint->key, PUBKEY_BYTES}, {&c->bump, 1}};
  SolSignerSeeds signer = {seeds, 3};
  SystemCall create = {in->accounts[0], custody, &signer};
  TRY(create_pda_account(&create, TOKEN_ACCOUNT_LEN, TOKEN_PROGRAM_ID, ANCHOR_CONSTRAINT_SEEDS));
  return token_initialize_account(custody, mint, in->accounts[2]->key);
}

static __attribute__((noinline)) uint64_t process_add_token(const Input *in) {
  if (in->data_len != 2) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;
  if (in->account_count < 9) return ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS;
  RawAccount *controller = in->accounts[1];
  RawAccount *state = in->accounts[2];
  RawAccount *mint = in->accounts[3];
  RawAccount *custody = in->accounts[4];
  Wallet w;
  TRY(check_signer(in->accounts[0]));
  TRY(check_writable(in->accounts[0]));
  TRY(check_signer(controller));
  TRY(check_writable(state));
  TRY(load_wallet(state, in->program_id, &w));
  if (!key_eq(controller->key, w.data + S_TOKEN_CONTROLLER)) return ERR_INVALID_AUTHORITY;
  if (!is_mint(mint)) return ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM;
  TRY(check_writable(custody));
  TRY(check_program(in->accounts[5], TOKEN_PROGRAM_ID));
  TRY(check_program(in->accounts[6], SYSTEM_PROGRAM_ID));
  TRY(check_event_accounts(in->accounts[7], in->accounts[8], in->program_id));
  CustodyCreation c = {in, 0};
  uint8_t address[PUBKEY_BYTES];
  SolBytes seeds[2] = {{SEED_CUSTODY, sizeof(SEED_CUSTODY)}, {mint->key, PUBKEY_BYTES}};
  if (sol_try_find_program_address(seeds, 2, in->program_id, address, &c.bump) != 0 ||
      !key_eq(address, custody->key))
    return ANCHOR_CONSTRAINT_SEEDS;
  TRY(create_custody(&c));
  if (key_index(w.data + S_TOKENS + 4, w.token_count, mint->key) >= 0) return 0;
  if (w.token_count >= MAX_TOKENS) return ERR_MAX_TOKENS_SUPPORTED;
  Serialized s = {w.data, w.capacity, w.end};
  if (!vec_push(&s, S_TOKENS, PUBKEY_BYTES, mint->key)) return ERR_MAX_TOKENS_SUPPORTED;
  s.end += PUBKEY_BYTES;
  if (!vec_push(&s, w.bumps_at + PUBKEY_BYTES, 1, &c.bump)) return ERR_MAX_TOKENS_SUPPORTED;
  LOG("gateway_wallet: token added");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * deposit — accounts: 0 payer (s, w), 1 owner (s: the depositor), 2 gateway_wallet, 3 owner token
 * account (w), 4 custody token account (w), 5 deposit (w, PDA ["gateway_deposit", mint, owner], created
 * if absent), 6 depositor denylist (PDA ["denylist", owner]; exists ⇒ denylisted), 7 token program,
 * 8 system program, 9 event authority, 10 this program
 * data: [22, 0], amount u64
 * ---------------------------------------------------------------------------------------------- */

/* The custody token account: ours for a supported mint, at its recorded bump; its mint is the deposit's. */
static __attribute__((noinline)) uint64_t check_custody(const Wallet *w, const RawAccount *custody,
                                                       const uint8_t *wallet_key, const uint8_t *program_id) {
  if (!is_token_account(custody)) return ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM;
  if (!key_eq(custody->data + TOKEN_ACCOUNT_OWNER, wallet_key)) return ANCHOR_CONSTRAINT_TOKEN_OWNER;
  const uint8_t *mint = custody->data + TOKEN_ACCOUNT_MINT;
  int64_t index = key_index(w->data + S_TOKENS + 4, w->token_count, mint);
  if (index < 0) return ERR_TOKEN_NOT_SUPPORTED;
  uint8_t address[PUBKEY_BYTES];
  SolBytes seeds[3] = {
      {SEED_CUSTODY, sizeof(SEED_CUSTODY)}, {mint, PUBKEY_BYTES}, {w->data + w->bumps_at + 4 + index, 1}};
  if (sol_create_program_address(seeds, 3, program_id, address) != 0 || !key_eq(address, custody->key))
    return ANCHOR_CONSTRAINT_SEEDS;
  return 0;
}

/* The depositor's GatewayDeposit: the PDA of (mint, owner), created on the first deposit, else ours. */
static __attribute__((noinline)) uint64_t open_deposit(const Input *in, const uint8_t *mint) {
  RawAccount *owner = in->accounts[1];
  RawAccount *deposit = in->accounts[5];
  uint8_t address[PUBKEY_BYTES];
  uint8_t bump;
  SolBytes seeds[4] = {
      {SEED_DEPOSIT, sizeof(SEED_DEPOSIT)}, {mint, PUBKEY_BYTES}, {owner->key, PUBKEY_BYTES}, {&bump, 1}};
  if (sol_try_find_program_address(seeds, 3, in->program_id, address, &bump) != 0 || !key_eq(address, deposit->key))
    return ANCHOR_CONSTRAINT_SEEDS;
  if (key_eq(deposit->owner, in->program_id)) {
    if (deposit->data_len != DEPOSIT_SPACE || deposit->data[0] != DEPOSIT_DISCRIMINATOR[0] ||
        deposit->data[1] != DEPOSIT_DISCRIMINATOR[1])
      return ANCHOR_ACCOUNT_DISCRIMINATOR_MISMATCH;
    return 0;
  }
  SolSignerSeeds signer = {seeds, 4};
  SystemCall create = {in->accounts[0], deposit, &signer};
  TRY(create_pda_account(&create, DEPOSIT_SPACE, in->program_id, ANCHOR_CONSTRAINT_SEEDS));
  uint8_t *d = deposit->data;
  d[0] = DEPOSIT_DISCRIMINATOR[0];
  d[1] = DEPOSIT_DISCRIMINATOR[1];
  d[D_BUMP] = bump;
  copy32(d + D_DEPOSITOR, owner->key);
  copy32(d + D_TOKEN_MINT, mint);
  return 0;
}

static __attribute__((noinline)) uint64_t process_deposit(const Input *in) {
  if (in->data_len != 2 + 8) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;
  if (in->account_count < 11) return ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS;
  RawAccount *payer = in->accounts[0];
  RawAccount *owner = in->accounts[1];
  RawAccount *state = in->accounts[2];
  RawAccount *from = in->accounts[3];
  RawAccount *custody = in->accounts[4];
  RawAccount *deposit = in->accounts[5];
  RawAccount *denylist = in->accounts[6];
  uint64_t amount = read_u64(in->data + 2);
  Wallet w;
  TRY(check_signer(payer));
  TRY(check_writable(payer));
  TRY(check_signer(owner));
  TRY(load_wallet(state, in->program_id, &w));
  if (w.data[S_PAUSED] != 0) return ERR_PROGRAM_PAUSED;
  TRY(check_writable(from));
  TRY(check_writable(custody));
  TRY(check_custody(&w, custody, state->key, in->program_id));
  const uint8_t *mint = custody->data + TOKEN_ACCOUNT_MINT;
  if (!is_token_account(from)) return ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM;
  if (!key_eq(from->data + TOKEN_ACCOUNT_MINT, mint)) return ANCHOR_CONSTRAINT_TOKEN_MINT;
  if (!key_eq(from->data + TOKEN_ACCOUNT_OWNER, owner->key)) return ANCHOR_CONSTRAINT_TOKEN_OWNER;
  TRY(check_writable(deposit));
  uint8_t address[PUBKEY_BYTES];
  uint8_t bump;
  SolBytes deny_seeds[2] = {{SEED_DENYLIST, sizeof(SEED_DENYLIST)}, {owner->key, PUBKEY_BYTES}};
  if (sol_try_find_program_address(deny_seeds, 2, in->program_id, address, &bump) != 0 ||
      !key_eq(address, denylist->key))
    return ANCHOR_CONSTRAINT_SEEDS;
  TRY(check_program(in->accounts[7], TOKEN_PROGRAM_ID));
  TRY(check_program(in->accounts[8], SYSTEM_PROGRAM_ID));
  TRY(check_event_accounts(in->accounts[9], in->accounts[10], in->program_id));
  TRY(open_deposit(in, mint));
  if (denylist->data_len != 0) return ERR_ACCOUNT_DENYLISTED;
  if (amount == 0) return ERR_INVALID_DEPOSIT_AMOUNT;
  uint64_t available = read_u64(deposit->data + D_AVAILABLE);
  if (available > UINT64_MAX - amount) return ERR_INVALID_DEPOSIT_AMOUNT;
  TRY(token_transfer(from, custody, owner, amount, NULL));
  write_u64(deposit->data + D_AVAILABLE, available + amount);
  sol_log_64_(amount, available + amount, token_amount(custody), 0, 0);
  LOG("gateway_wallet: deposited");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Entrypoint
 * ---------------------------------------------------------------------------------------------- */

static uint64_t dispatch(const Input *in) {
  if (in->data_len < 2 || in->data[0] != IX_NAMESPACE) return ANCHOR_INSTRUCTION_FALLBACK_NOT_FOUND;
  if (in->data[1] == IX_DEPOSIT) return process_deposit(in);
  if (in->data[1] == IX_INITIALIZE) return process_initialize(in);
  if (in->data[1] == IX_ADD_TOKEN) return process_add_token(in);
  return ANCHOR_INSTRUCTION_FALLBACK_NOT_FOUND;
}

uint64_t entrypoint(const uint8_t *input) {
  Input in;
  parse_input(input, &in);
  uint64_t err = dispatch(&in);
  if (err >= ERR_INVALID_AUTHORITY && err < ERR_END) {
    log_error(err);
  } else if (err != 0) {
    sol_log_64_(err, 0, 0, 0, 0);
    LOG("gateway_wallet: error Anchor");
  }
  return err;
}
