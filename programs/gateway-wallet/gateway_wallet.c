/*
 * GatewayWallet of our own, for the embedded chain: the Solana source of Circle Gateway as
 * circlefin/solana-gateway-contracts programs/gateway-wallet defines it, for deposits and the operator's
 * burns. Same discriminators, Borsh arguments, account orders, PDA seeds, state layouts and error numbers as
 * Circle's, so that a client's bytes work against both: deposit moves USDC into the wallet's custody PDA and
 * keeps the depositor's balance in its GatewayDeposit PDA ["gateway_deposit", mint, depositor]; gateway_burn
 * burns a depositor's Ed25519-signed intent from that balance once Gateway's burn signer has signed it. What
 * is left out, and why: README.md.
 *
 * Built like programs/htlc (stock clang, -mcpu=v1, our own packager).
 */
#define MAX_ACCOUNTS 16
#include "../common/gateway.h"

#define IX_NAMESPACE 22
#define IX_DEPOSIT 0
#define IX_GATEWAY_BURN 2
#define IX_INITIALIZE 5
#define IX_ADD_TOKEN 12
#define IX_ADD_BURN_SIGNER 13

static const uint8_t WALLET_DISCRIMINATOR[2] = {21, 0};
static const uint8_t DEPOSIT_DISCRIMINATOR[2] = {21, 1};
static const uint8_t USED_HASH_DISCRIMINATOR[2] = {21, 4};

static const uint8_t SEED_WALLET[] = {'g', 'a', 't', 'e', 'w', 'a', 'y', '_', 'w', 'a', 'l', 'l', 'e', 't'};
static const uint8_t SEED_CUSTODY[] = {'g', 'a', 't', 'e', 'w', 'a', 'y', '_', 'w', 'a', 'l', 'l',
                                       'e', 't', '_', 'c', 'u', 's', 't', 'o', 'd', 'y'};
static const uint8_t SEED_DEPOSIT[] = {'g', 'a', 't', 'e', 'w', 'a', 'y', '_', 'd', 'e', 'p', 'o', 's', 'i', 't'};
static const uint8_t SEED_DENYLIST[] = {'d', 'e', 'n', 'y', 'l', 'i', 's', 't'};

/* Ed25519SigVerify111111111111111111111111111 */
static const uint8_t ED25519_PROGRAM_ID[PUBKEY_BYTES] = {
    0x03, 0x7d, 0x46, 0xd6, 0x7c, 0x93, 0xfb, 0xbe, 0x12, 0xf9, 0x42, 0x8f, 0x83, 0x8d, 0x40, 0xff,
    0x05, 0x70, 0x74, 0x49, 0x27, 0xf4, 0x8a, 0x64, 0xfc, 0xca, 0x70, 0x44, 0x80, 0x00, 0x00, 0x00};
/* Sysvar1nstructions1111111111111111111111111 */
static const uint8_t INSTRUCTIONS_SYSVAR_ID[PUBKEY_BYTES] = {
    0x06, 0xa7, 0xd5, 0x17, 0x18, 0x7b, 0xd1, 0x66, 0x35, 0xda, 0xd4, 0x04, 0x55, 0xfd, 0xc2, 0xc0,
    0xc1, 0x24, 0xc6, 0x8f, 0x21, 0x56, 0x75, 0xa5, 0xdb, 0xba, 0xcb, 0x5f, 0x08, 0x00, 0x00, 0x00};
/* ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL */
static const uint8_t ASSOCIATED_TOKEN_PROGRAM_ID[PUBKEY_BYTES] = {
    0x8c, 0x97, 0x25, 0x8f, 0x4e, 0x24, 0x89, 0xf1, 0xbb, 0x3d, 0x10, 0x29, 0x14, 0x8e, 0x0d, 0x83,
    0x0b, 0x5a, 0x13, 0x99, 0xda, 0xff, 0x10, 0x84, 0x04, 0x8e, 0x7b, 0xd8, 0xdb, 0xe9, 0xf8, 0x59};

#define MAX_BURN_SIGNERS 10
/* 2 + GatewayWallet::INIT_SPACE: bump, six keys, two u32, u64, bool, Vec<Pubkey>[10], Vec<u8>[10],
 * Vec<Pubkey>[10]. */
#define WALLET_SPACE (2 + 1 + 6 * 32 + 4 + 4 + 8 + 1 + (4 + 32 * MAX_TOKENS) + (4 + MAX_TOKENS) + (4 + 32 * MAX_BURN_SIGNERS))
/* 2 + GatewayDeposit::INIT_SPACE: bump, depositor, token_mint, three u64. */
#define DEPOSIT_SPACE (2 + 1 + 32 + 32 + 8 + 8 + 8)
#define WALLET_VERSION 1

/* GatewayWallet state offsets (Borsh). */
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

/* anchor_lang ErrorCode for the address, associated-token and token constraints. */
#define ANCHOR_CONSTRAINT_ASSOCIATED 2009
#define ANCHOR_CONSTRAINT_ADDRESS 2012
#define ANCHOR_CONSTRAINT_TOKEN_MINT 2014
#define ANCHOR_CONSTRAINT_TOKEN_OWNER 2015

/* GatewayWalletError (error.rs), from 6000 in declaration order. */
enum {
  ERR_INVALID_AUTHORITY = CUSTOM_ERROR_BASE,
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
  ERR_INVALID_DELEGATE,
  ERR_CANNOT_DELEGATE_TO_SELF,
  ERR_MALFORMED_BURN_DATA,
  ERR_INVALID_BURN_INTENT_MESSAGE_PREFIX,
  ERR_INVALID_BURN_INTENT_VALUE,
  ERR_BURN_INTENT_MAGIC_MISMATCH,
  ERR_BURN_INTENT_LENGTH_MISMATCH,
  ERR_TRANSFER_SPEC_MAGIC_MISMATCH,
  ERR_INVALID_U64_HIGH_BYTES,
  ERR_INVALID_BURN_SIGNER_SIGNATURE,
  ERR_BURN_SIGNER_NOT_AUTHORIZED,
  ERR_VERSION_MISMATCH,
  ERR_BURN_INTENT_EXPIRED,
  ERR_BURN_FEE_EXCEEDS_MAX_FEE,
  ERR_SOURCE_DOMAIN_MISMATCH,
  ERR_SOURCE_CONTRACT_MISMATCH,
  ERR_SOURCE_TOKEN_MISMATCH,
  ERR_SOURCE_DEPOSITOR_MISMATCH,
  ERR_INVALID_BALANCE_REDUCTION_AMOUNT,
  ERR_INSUFFICIENT_CUSTODY_BALANCE,
  ERR_PREVIOUS_INSTRUCTION_NOT_ED25519_PROGRAM,
  ERR_INVALID_ED25519_INSTRUCTION_DATA,
  ERR_INVALID_DELEGATE_ACCOUNT,
  ERR_DELEGATE_DEPOSITOR_MISMATCH,
  ERR_DELEGATE_SIGNER_MISMATCH,
  ERR_DELEGATE_SIGNER_NOT_AUTHORIZED,
  ERR_REMAINING_ACCOUNTS_LENGTH_MISMATCH,
  ERR_INVALID_TRANSFER_SPEC_HASH_ACCOUNT,
  ERR_TRANSFER_SPEC_HASH_ALREADY_USED,
  ERR_END
};

#define ERROR_NAME_WIDTH 40
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
    "InvalidDelegate",
    "CannotDelegateToSelf",
    "MalformedBurnData",
    "InvalidBurnIntentMessagePrefix",
    "InvalidBurnIntentValue",
    "BurnIntentMagicMismatch",
    "BurnIntentLengthMismatch",
    "TransferSpecMagicMismatch",
    "InvalidU64HighBytes",
    "InvalidBurnSignerSignature",
    "BurnSignerNotAuthorized",
    "VersionMismatch",
    "BurnIntentExpired",
    "BurnFeeExceedsMaxFee",
    "SourceDomainMismatch",
    "SourceContractMismatch",
    "SourceTokenMismatch",
    "SourceDepositorMismatch",
    "InvalidBalanceReductionAmount",
    "InsufficientCustodyBalance",
    "PreviousInstructionNotEd25519Program",
    "InvalidEd25519InstructionData",
    "InvalidDelegateAccount",
    "DelegateDepositorMismatch",
    "DelegateSignerMismatch",
    "DelegateSignerNotAuthorized",
    "RemainingAccountsLengthMismatch",
    "InvalidTransferSpecHashAccount",
    "TransferSpecHashAlreadyUsed",
};

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
  TRY(check_state_owner(a, program_id, WALLET_DISCRIMINATOR));
  if (!parse_wallet(a->data, a->data_len, w)) return ANCHOR_ACCOUNT_DISCRIMINATOR_MISMATCH;
  return check_state_address(a, program_id, SEED_WALLET, sizeof(SEED_WALLET));
}

/* The supported mints and their custody bumps, for check_custody. */
static void wallet_tokens(const Wallet *w, Tokens *t) {
  t->mints = w->data + S_TOKENS + 4;
  t->count = w->token_count;
  t->bumps = w->data + w->bumps_at + 4;
}

/* Circle's wallet checks its custody account with Anchor's token constraints. */
static void custody_rules(CustodyRules *r) {
  r->seed = SEED_CUSTODY;
  r->seed_len = sizeof(SEED_CUSTODY);
  r->not_token_account = ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM;
  r->wrong_mint = ANCHOR_CONSTRAINT_TOKEN_MINT;
  r->wrong_owner = ANCHOR_CONSTRAINT_TOKEN_OWNER;
  r->wrong_address = ANCHOR_CONSTRAINT_SEEDS;
  r->not_supported = ERR_TOKEN_NOT_SUPPORTED;
  r->too_many_tokens = ERR_MAX_TOKENS_SUPPORTED;
}

/* ------------------------------------------------------------------------------------------------
 * initialize — accounts: 0 payer (s, w), 1 upgrade authority (s), 2 gateway_wallet (w), 3 program data,
 * 4 this program, 5 system program, 6 event authority, 7 this program
 * data: [22, 5], local_domain u32, withdrawal_delay u64
 * As the minter's: no ProgramData to read here, the first caller becomes owner (README.md).
 * ---------------------------------------------------------------------------------------------- */

static __attribute__((noinline)) uint64_t process_initialize(const Input *in) {
  if (in->data_len != 2 + 4 + 8) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;
  uint8_t bump;
  SolBytes seed; /* field by field: see check_event_accounts */
  seed.addr = SEED_WALLET;
  seed.len = sizeof(SEED_WALLET);
  TRY(check_initialize(in, &seed, &bump));
  uint64_t delay = read_u64(in->data + 6);
  if (delay == 0) return ERR_INVALID_WITHDRAWAL_DELAY;
  TRY(create_state(in, &seed, bump, WALLET_SPACE, WALLET_DISCRIMINATOR));
  const uint8_t *authority = in->accounts[1]->key;
  uint8_t *d = in->accounts[2]->data;
  copy32(d + S_OWNER, authority);
  copy32(d + S_PAUSER, authority);
  copy32(d + S_DENYLISTER, authority);
  copy32(d + S_TOKEN_CONTROLLER, authority);
  copy32(d + S_FEE_RECIPIENT, authority);
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

static __attribute__((noinline)) uint64_t process_add_token(const Input *in) {
  if (in->data_len != 2) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;
  if (in->account_count < 9) return ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS;
  Wallet w;
  TRY(check_admin_accounts(in));
  TRY(load_wallet(in->accounts[2], in->program_id, &w));
  if (!key_eq(in->accounts[1]->key, w.data + S_TOKEN_CONTROLLER)) return ERR_INVALID_AUTHORITY;
  CustodyRules r;
  custody_rules(&r);
  Tokens t;
  wallet_tokens(&w, &t);
  Serialized s = {w.data, w.capacity, w.end};
  TRY(add_token(in, &r, &t, &s, S_TOKENS));
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
  CustodyRules r;
  custody_rules(&r);
  Tokens t;
  wallet_tokens(&w, &t);
  TRY(check_custody(&r, &t, custody, state->key, in->program_id));
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
 * add_burn_signer — accounts: 0 owner (s), 1 gateway_wallet (w), 2 event authority, 3 this program
 * data: [22, 13], signer [32] (an EVM address, left-padded with 12 zero bytes)
 * ---------------------------------------------------------------------------------------------- */

static __attribute__((noinline)) uint64_t process_add_burn_signer(const Input *in) {
  Wallet w;
  TRY(check_owner_accounts(in));
  TRY(load_wallet(in->accounts[1], in->program_id, &w));
  if (!key_eq(in->accounts[0]->key, w.data + S_OWNER)) return ERR_INVALID_AUTHORITY;
  KeyListRules r;
  r.max = MAX_BURN_SIGNERS;
  r.invalid = ERR_INVALID_BURN_SIGNER;
  r.full = ERR_BURN_SIGNER_LIMIT_EXCEEDED;
  Serialized s = {w.data, w.capacity, w.end};
  TRY(add_key(in, &r, &s, w.signers_at));
  LOG("gateway_wallet: burn signer added");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * gateway_burn — Gateway's operator burns a Solana depositor's signed intent after the mint elsewhere.
 * accounts: 0 payer (s, w), 1 gateway_wallet, 2 token mint (w), 3 custody (w), 4 fee recipient's
 * associated token account (w), 5 deposit (w), 6 delegate (None: this program's id), 7 instructions
 * sysvar, 8 system program, 9 token program, 10 associated token program, 11 event authority,
 * 12 this program, 13 used transfer spec hash PDA (w)
 * data: [22, 2], encoded_burn_data Vec<u8>, burn_signature Vec<u8>
 * burn data (big-endian): fee u64 @0, user signature @8, 0xff + 15 zeros @72, BurnIntent @88 (its
 * TransferSpec @160, hook data @500). The instruction before this one is the Ed25519 precompile, verifying
 * the user signature over prefix ‖ BurnIntent against the spec's source signer, all inside this
 * instruction's data.
 * ---------------------------------------------------------------------------------------------- */

#define BD_FEE 0
#define BD_USER_SIGNATURE 8
#define BD_PREFIX 72
#define BD_MAGIC 88
#define BD_MAX_BLOCK_HEIGHT 92
#define BD_MAX_FEE 124
#define BD_TRANSFER_SPEC_LENGTH 156
#define BD_TRANSFER_SPEC 160
#define BD_TS_MAGIC 160
#define BD_VERSION 164
#define BD_SOURCE_DOMAIN 168
#define BD_SOURCE_CONTRACT 176
#define BD_SOURCE_TOKEN 240
#define BD_SOURCE_DEPOSITOR 304
#define BD_SOURCE_SIGNER 368
#define BD_VALUE 432
#define BD_HOOK_DATA_LENGTH 496
#define BD_HOOK_DATA 500
#define BURN_DATA_IN_IX 6 /* discriminator + the Vec's u32 length */

#define BURN_INTENT_MAGIC 0x070afbc2u
#define TRANSFER_SPEC_MAGIC 0xca85def7u

/* A u256 field that must fit a u64 (the first 24 bytes zero), as BurnData reads value, fee, height. */
static bool read_u256_as_u64(const uint8_t *p, uint64_t *out) {
  for (int i = 0; i < 24; i++) {
    if (p[i] != 0) return false;
  }
  *out = read_u64_be(p + 24);
  return true;
}

typedef struct {
  const Input *in;
  const Wallet *w;
  const uint8_t *bd;
  uint64_t bd_len;
  uint64_t value;
  uint64_t fee;
} Burn;

/* BurnData::new: the lengths, prefix and magics, and a positive value that fits a u64. */
static __attribute__((noinline)) uint64_t parse_burn_data(Burn *b) {
  const uint8_t *bd = b->bd;
  if (b->bd_len < BD_HOOK_DATA) return ERR_BURN_INTENT_LENGTH_MISMATCH;
  if (bd[BD_PREFIX] != 0xff) return ERR_INVALID_BURN_INTENT_MESSAGE_PREFIX;
  for (int i = 1; i < 16; i++) {
    if (bd[BD_PREFIX + i] != 0) return ERR_INVALID_BURN_INTENT_MESSAGE_PREFIX;
  }
  if (read_u32_be(bd + BD_MAGIC) != BURN_INTENT_MAGIC) return ERR_BURN_INTENT_MAGIC_MISMATCH;
  if (read_u32_be(bd + BD_TS_MAGIC) != TRANSFER_SPEC_MAGIC) return ERR_TRANSFER_SPEC_MAGIC_MISMATCH;
  uint64_t hook = read_u32_be(bd + BD_HOOK_DATA_LENGTH);
  if (b->bd_len != BD_HOOK_DATA + hook) return ERR_BURN_INTENT_LENGTH_MISMATCH;
  if (read_u32_be(bd + BD_TRANSFER_SPEC_LENGTH) != BD_HOOK_DATA - BD_TRANSFER_SPEC + hook)
    return ERR_BURN_INTENT_LENGTH_MISMATCH;
  if (!read_u256_as_u64(bd + BD_VALUE, &b->value)) return ERR_INVALID_U64_HIGH_BYTES;
  if (b->value == 0) return ERR_INVALID_BURN_INTENT_VALUE;
  b->fee = read_u64_be(bd + BD_FEE);
  return 0;
}

/* The previous instruction is the Ed25519 precompile, checking one signature whose offsets all point into
 * this instruction: the user signature, the source signer, and prefix ‖ BurnIntent (verify_user_signature). */
static __attribute__((noinline)) uint64_t verify_user_signature(const RawAccount *sysvar, uint64_t message_len) {
  if (message_len > 0xffff) return ERR_MALFORMED_BURN_DATA;
  const uint8_t *d = sysvar->data;
  uint64_t len = sysvar->data_len;
  if (len < 4) return ERR_PREVIOUS_INSTRUCTION_NOT_ED25519_PROGRAM;
  uint16_t count = read_u16(d);
  uint16_t current = read_u16(d + len - 2);
  if (current == 0 || current >= count || 2 + 2 * (uint64_t)count > len)
    return ERR_PREVIOUS_INSTRUCTION_NOT_ED25519_PROGRAM;
  uint64_t at = read_u16(d + 2 + 2 * (uint64_t)(current - 1));
  if (at + 2 > len) return ERR_PREVIOUS_INSTRUCTION_NOT_ED25519_PROGRAM;
  at += 2 + 33 * (uint64_t)read_u16(d + at); /* the instruction's account metas */
  if (at + PUBKEY_BYTES + 2 > len) return ERR_PREVIOUS_INSTRUCTION_NOT_ED25519_PROGRAM;
  if (!key_eq(d + at, ED25519_PROGRAM_ID)) return ERR_PREVIOUS_INSTRUCTION_NOT_ED25519_PROGRAM;
  at += PUBKEY_BYTES;
  uint64_t data_len = read_u16(d + at);
  const uint8_t *h = d + at + 2;
  if (data_len != 16 || at + 2 + data_len > len) return ERR_INVALID_ED25519_INSTRUCTION_DATA;
  bool valid = h[0] == 1 && h[1] == 0 && read_u16(h + 2) == BURN_DATA_IN_IX + BD_USER_SIGNATURE &&
               read_u16(h + 4) == current && read_u16(h + 6) == BURN_DATA_IN_IX + BD_SOURCE_SIGNER &&
               read_u16(h + 8) == current && read_u16(h + 10) == BURN_DATA_IN_IX + BD_PREFIX &&
               read_u16(h + 12) == message_len && read_u16(h + 14) == current;
  return valid ? 0 : ERR_INVALID_ED25519_INSTRUCTION_DATA;
}

/* The wallet's accounts as Anchor's constraints check them, before the handler runs. */
static __attribute__((noinline)) uint64_t check_burn_accounts(const Input *in, const Wallet *w) {
  RawAccount *state = in->accounts[1];
  RawAccount *mint = in->accounts[2];
  RawAccount *custody = in->accounts[3];
  RawAccount *fee_account = in->accounts[4];
  RawAccount *deposit = in->accounts[5];
  TRY(check_writable(mint));
  if (!is_mint(mint)) return ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM;
  TRY(check_writable(custody));
  CustodyRules r;
  custody_rules(&r);
  Tokens t;
  wallet_tokens(w, &t);
  TRY(check_custody(&r, &t, custody, state->key, in->program_id));
  if (!key_eq(custody->data + TOKEN_ACCOUNT_MINT, mint->key)) return ANCHOR_CONSTRAINT_TOKEN_MINT;
  TRY(check_writable(fee_account));
  if (!is_token_account(fee_account)) return ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM;
  uint8_t address[PUBKEY_BYTES];
  uint8_t bump;
  SolBytes ata[3] = {
      {w->data + S_FEE_RECIPIENT, PUBKEY_BYTES}, {TOKEN_PROGRAM_ID, PUBKEY_BYTES}, {mint->key, PUBKEY_BYTES}};
  if (sol_try_find_program_address(ata, 3, ASSOCIATED_TOKEN_PROGRAM_ID, address, &bump) != 0 ||
      !key_eq(address, fee_account->key))
    return ANCHOR_CONSTRAINT_ASSOCIATED;
  TRY(check_writable(deposit));
  if (!key_eq(deposit->owner, in->program_id)) return ANCHOR_ACCOUNT_OWNED_BY_WRONG_PROGRAM;
  if (deposit->data_len != DEPOSIT_SPACE || deposit->data[0] != DEPOSIT_DISCRIMINATOR[0] ||
      deposit->data[1] != DEPOSIT_DISCRIMINATOR[1])
    return ANCHOR_ACCOUNT_DISCRIMINATOR_MISMATCH;
  SolBytes seeds[4] = {{SEED_DEPOSIT, sizeof(SEED_DEPOSIT)},
                       {mint->key, PUBKEY_BYTES},
                       {deposit->data + D_DEPOSITOR, PUBKEY_BYTES},
                       {deposit->data + D_BUMP, 1}};
  if (sol_create_program_address(seeds, 4, in->program_id, address) != 0 || !key_eq(address, deposit->key))
    return ANCHOR_CONSTRAINT_SEEDS;
  /* Delegates are not implemented (README.md): the optional account must be absent (the program id). */
  if (!key_eq(in->accounts[6]->key, in->program_id)) return ERR_INVALID_DELEGATE_ACCOUNT;
  if (!key_eq(in->accounts[7]->key, INSTRUCTIONS_SYSVAR_ID)) return ANCHOR_CONSTRAINT_ADDRESS;
  TRY(check_program(in->accounts[8], SYSTEM_PROGRAM_ID));
  TRY(check_program(in->accounts[9], TOKEN_PROGRAM_ID));
  TRY(check_program(in->accounts[10], ASSOCIATED_TOKEN_PROGRAM_ID));
  return check_event_accounts(in->accounts[11], in->accounts[12], in->program_id);
}

/* The intent's fields against this wallet, mint, deposit and the clock, in Circle's order. */
static __attribute__((noinline)) uint64_t check_intent(const Burn *b) {
  const Input *in = b->in;
  const uint8_t *bd = b->bd;
  if (read_u32_be(bd + BD_VERSION) != read_u32_le(b->w->data + S_VERSION)) return ERR_VERSION_MISMATCH;
  uint64_t max_block_height;
  if (!read_u256_as_u64(bd + BD_MAX_BLOCK_HEIGHT, &max_block_height)) return ERR_INVALID_U64_HIGH_BYTES;
  SolClock clock;
  sol_get_clock_sysvar(&clock);
  if (max_block_height < clock.slot) return ERR_BURN_INTENT_EXPIRED;
  if (read_u32_be(bd + BD_SOURCE_DOMAIN) != read_u32_le(b->w->data + S_LOCAL_DOMAIN)) return ERR_SOURCE_DOMAIN_MISMATCH;
  if (!key_eq(bd + BD_SOURCE_CONTRACT, in->program_id)) return ERR_SOURCE_CONTRACT_MISMATCH;
  if (!key_eq(bd + BD_SOURCE_TOKEN, in->accounts[2]->key)) return ERR_SOURCE_TOKEN_MISMATCH;
  const uint8_t *depositor = in->accounts[5]->data + D_DEPOSITOR;
  if (!key_eq(bd + BD_SOURCE_DEPOSITOR, depositor)) return ERR_SOURCE_DEPOSITOR_MISMATCH;
  if (!key_eq(bd + BD_SOURCE_SIGNER, depositor)) return ERR_INVALID_DELEGATE_ACCOUNT;
  uint64_t max_fee;
  if (!read_u256_as_u64(bd + BD_MAX_FEE, &max_fee)) return ERR_INVALID_U64_HIGH_BYTES;
  if (b->fee > max_fee) return ERR_BURN_FEE_EXCEEDS_MAX_FEE;
  if (b->value > UINT64_MAX - b->fee || token_amount(in->accounts[3]) < b->value + b->fee)
    return ERR_INSUFFICIENT_CUSTODY_BALANCE;
  return 0;
}

/* Marks keccak256(TransferSpec) used in ["used_transfer_spec_hash", hash]; a second burn of it fails. */
static __attribute__((noinline)) uint64_t use_transfer_spec_hash(const Burn *b) {
  const Input *in = b->in;
  RawAccount *account = in->accounts[13];
  uint8_t hash[32];
  SolBytes spec = {b->bd + BD_TRANSFER_SPEC, b->bd_len - BD_TRANSFER_SPEC};
  sol_keccak256(&spec, 1, hash);
  UsedHashRules r;
  r.discriminator = USED_HASH_DISCRIMINATOR;
  r.invalid_account = ERR_INVALID_TRANSFER_SPEC_HASH_ACCOUNT;
  r.already_used = ERR_TRANSFER_SPEC_HASH_ALREADY_USED;
  return mark_transfer_spec_hash(in, &r, hash, account);
}

/* reduce_balance(value + fee): from available first, then withdrawing, as much as there is; the fee is what
 * was deducted beyond the value, paid to the fee recipient; the rest is burned from custody. */
static __attribute__((noinline)) uint64_t settle_burn(const Burn *b) {
  const Input *in = b->in;
  uint8_t *d = in->accounts[5]->data;
  uint64_t needed = b->value + b->fee;
  uint64_t available = read_u64(d + D_AVAILABLE);
  uint64_t withdrawing = read_u64(d + D_WITHDRAWING);
  uint64_t from_available = available < needed ? available : needed;
  uint64_t rest = needed - from_available;
  uint64_t from_withdrawing = withdrawing < rest ? withdrawing : rest;
  write_u64(d + D_AVAILABLE, available - from_available);
  write_u64(d + D_WITHDRAWING, withdrawing - from_withdrawing);
  uint64_t deducted = from_available + from_withdrawing;
  uint64_t fee = deducted > b->value ? deducted - b->value : 0;
  SolBytes seeds[2] = {{SEED_WALLET, sizeof(SEED_WALLET)}, {b->w->data + STATE_BUMP, 1}};
  SolSignerSeeds signer = {seeds, 2};
  if (fee > 0) TRY(token_transfer(in->accounts[3], in->accounts[4], in->accounts[1], fee, &signer));
  if (deducted - fee > 0) TRY(token_burn(in->accounts[3], in->accounts[2], in->accounts[1], deducted - fee, &signer));
  sol_log_64_(deducted - fee, fee, from_available, from_withdrawing, needed - deducted);
  return 0;
}

static __attribute__((noinline)) uint64_t process_gateway_burn(const Input *in) {
  if (in->account_count < 13) return ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS;
  RawAccount *payer = in->accounts[0];
  Wallet w;
  TRY(check_signer(payer));
  TRY(check_writable(payer));
  TRY(load_wallet(in->accounts[1], in->program_id, &w));
  if (w.data[S_PAUSED] != 0) return ERR_PROGRAM_PAUSED;
  TRY(check_burn_accounts(in, &w));

  if (in->data_len < BURN_DATA_IN_IX) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;
  uint64_t bd_len = read_u32_le(in->data + 2);
  if (in->data_len < BURN_DATA_IN_IX + bd_len + 4) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;
  const uint8_t *signature = in->data + BURN_DATA_IN_IX + bd_len + 4;
  uint64_t signature_len = read_u32_le(in->data + BURN_DATA_IN_IX + bd_len);
  if (in->data_len != BURN_DATA_IN_IX + bd_len + 4 + signature_len) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;
  Burn b = {in, &w, in->data + BURN_DATA_IN_IX, bd_len, 0, 0};

  /* The burn signer's EIP-191 signature over keccak256(burn data). */
  SolBytes message = {b.bd, bd_len};
  uint8_t burn_signer[32];
  if (!recover_evm_signer(&message, signature, signature_len, burn_signer)) return ERR_INVALID_BURN_SIGNER_SIGNATURE;
  if (key_index(w.data + w.signers_at + 4, read_u32_le(w.data + w.signers_at), burn_signer) < 0)
    return ERR_BURN_SIGNER_NOT_AUTHORIZED;
  TRY(parse_burn_data(&b));
  TRY(verify_user_signature(in->accounts[7], bd_len - BD_PREFIX));
  TRY(check_intent(&b));
  if (in->account_count != 14) return ERR_REMAINING_ACCOUNTS_LENGTH_MISMATCH;
  TRY(use_transfer_spec_hash(&b));
  TRY(settle_burn(&b));
  LOG("gateway_wallet: burned");
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
  if (in->data[1] == IX_GATEWAY_BURN) return process_gateway_burn(in);
  if (in->data[1] == IX_ADD_BURN_SIGNER) return process_add_burn_signer(in);
  return ANCHOR_INSTRUCTION_FALLBACK_NOT_FOUND;
}

GATEWAY_ENTRYPOINT("gateway_wallet: error ")
