/*
 * GatewayMinter of our own, for the embedded chain: the Solana destination of Circle Gateway as
 * circlefin/solana-gateway-contracts programs/gateway-minter defines it. Same instruction discriminators,
 * Borsh arguments, account orders, PDA seeds, state layout and error numbers, so that the bytes a client
 * builds for Circle's minter mint here too. gatewayMint verifies a reduced attestation set signed by an
 * enabled attester (secp256k1 recovery of the EIP-191 hash of keccak256(attestation)), and for each element
 * moves `value` from the token's custody account to the attested recipient, marking the transfer spec hash
 * used in a PDA so that no attestation mints twice. What is left out, and why: README.md.
 *
 * Built like programs/htlc (stock clang, -mcpu=v1, our own packager): no writable globals, at most 5
 * arguments per call, 512-byte stack frames. Checks run in the order Circle's handler makes them.
 */
#define MAX_ACCOUNTS 16
#include "../common/gateway.h"

/* Instruction discriminators (programs/gateway-minter/src/lib.rs) and ours beyond Circle's. */
#define IX_NAMESPACE 12
#define IX_GATEWAY_MINT 0
#define IX_INITIALIZE 2
#define IX_ADD_ATTESTER 7
#define IX_ADD_TOKEN 9
/* Ours: the token controller mints into a custody account, the minter PDA being the mint's authority. */
#define IX_MINT_CUSTODY 100

/* Account discriminators (state.rs). */
static const uint8_t MINTER_DISCRIMINATOR[2] = {11, 0};
static const uint8_t USED_HASH_DISCRIMINATOR[2] = {11, 1};

static const uint8_t SEED_MINTER[] = {'g', 'a', 't', 'e', 'w', 'a', 'y', '_', 'm', 'i', 'n', 't', 'e', 'r'};
static const uint8_t SEED_CUSTODY[] = {'g', 'a', 't', 'e', 'w', 'a', 'y', '_', 'm', 'i', 'n', 't',
                                       'e', 'r', '_', 'c', 'u', 's', 't', 'o', 'd', 'y'};

#define MAX_ATTESTERS 10
/* 2 (discriminator) + GatewayMinter::INIT_SPACE: bump, four keys, paused, Vec<Pubkey>[10], two u32,
 * Vec<Pubkey>[10], Vec<u8>[10]. */
#define MINTER_SPACE (2 + 1 + 4 * 32 + 1 + (4 + 32 * MAX_ATTESTERS) + 4 + 4 + (4 + 32 * MAX_TOKENS) + (4 + MAX_TOKENS))
#define MINTER_VERSION 1

/* Fixed offsets of the state (Borsh; the vectors make everything after the attesters move). */
#define S_OWNER 3
#define S_PENDING_OWNER 35
#define S_PAUSER 67
#define S_TOKEN_CONTROLLER 99
#define S_PAUSED 131
#define S_ATTESTERS 132

/* Reduced attestation set (attestation.rs), big-endian. */
#define ATTESTATION_SET_MAGIC 0x10cbb1ecu
#define A_VERSION 4
#define A_DESTINATION_DOMAIN 8
#define A_DESTINATION_CONTRACT 12
#define A_DESTINATION_CALLER 44
#define A_MAX_BLOCK_HEIGHT 76
#define A_NUM_ATTESTATIONS 84
#define A_ATTESTATIONS 88
#define E_DESTINATION_TOKEN 0
#define E_DESTINATION_RECIPIENT 32
#define E_VALUE 64
#define E_TRANSFER_SPEC_HASH 72
#define E_HOOK_DATA_LENGTH 104
#define E_HOOK_DATA 108

/* GatewayMinterError (error.rs): Anchor numbers custom errors from 6000 in declaration order. */
enum {
  ERR_INVALID_AUTHORITY = CUSTOM_ERROR_BASE,
  ERR_INVALID_PAUSER,
  ERR_INVALID_TOKEN_CONTROLLER,
  ERR_PROGRAM_PAUSED,
  ERR_INVALID_ATTESTER,
  ERR_ATTESTER_LIMIT_EXCEEDED,
  ERR_MAX_TOKENS_SUPPORTED,
  ERR_TOKEN_NOT_SUPPORTED,
  ERR_INVALID_BURN_AMOUNT,
  ERR_MALFORMED_MINT_ATTESTATION,
  ERR_ATTESTATION_MAGIC_MISMATCH,
  ERR_ATTESTATION_TOO_SHORT,
  ERR_ATTESTATION_TOO_LONG,
  ERR_EMPTY_ATTESTATION_SET,
  ERR_INVALID_ATTESTER_SIGNATURE,
  ERR_VERSION_MISMATCH,
  ERR_ATTESTATION_EXPIRED,
  ERR_INVALID_ATTESTATION_VALUE,
  ERR_DESTINATION_DOMAIN_MISMATCH,
  ERR_DESTINATION_CONTRACT_MISMATCH,
  ERR_DESTINATION_TOKEN_MISMATCH,
  ERR_DESTINATION_CALLER_MISMATCH,
  ERR_DESTINATION_RECIPIENT_MISMATCH,
  ERR_REMAINING_ACCOUNTS_LENGTH_MISMATCH,
  ERR_INVALID_TRANSFER_SPEC_HASH_ACCOUNT,
  ERR_TRANSFER_SPEC_HASH_ALREADY_USED,
  ERR_INVALID_CUSTODY_TOKEN_ACCOUNT,
  ERR_INVALID_DESTINATION_TOKEN_ACCOUNT,
  ERR_END
};

#define ERROR_NAME_WIDTH 36
static const char ERROR_NAMES[ERR_END - ERR_INVALID_AUTHORITY][ERROR_NAME_WIDTH] = {
    "InvalidAuthority",
    "InvalidPauser",
    "InvalidTokenController",
    "ProgramPaused",
    "InvalidAttester",
    "AttesterLimitExceeded",
    "MaxTokensSupported",
    "TokenNotSupported",
    "InvalidBurnAmount",
    "MalformedMintAttestation",
    "AttestationMagicMismatch",
    "AttestationTooShort",
    "AttestationTooLong",
    "EmptyAttestationSet",
    "InvalidAttesterSignature",
    "VersionMismatch",
    "AttestationExpired",
    "InvalidAttestationValue",
    "DestinationDomainMismatch",
    "DestinationContractMismatch",
    "DestinationTokenMismatch",
    "DestinationCallerMismatch",
    "DestinationRecipientMismatch",
    "RemainingAccountsLengthMismatch",
    "InvalidTransferSpecHashAccount",
    "TransferSpecHashAlreadyUsed",
    "InvalidCustodyTokenAccount",
    "InvalidDestinationTokenAccount",
};

/* ------------------------------------------------------------------------------------------------
 * State
 * ---------------------------------------------------------------------------------------------- */

typedef struct {
  uint8_t *data;
  uint64_t capacity;
  uint32_t attester_count;
  uint64_t local_domain_at;
  uint32_t local_domain;
  uint32_t version;
  uint64_t tokens_at; /* the Vec<Pubkey> of supported mints: u32 length, then keys */
  uint32_t token_count;
  uint64_t bumps_at; /* the Vec<u8> of custody bumps, one per supported mint */
  uint64_t end;
} Minter;

/* Reads the state's variable part; false when its vectors run past the account. */
static bool parse_minter(uint8_t *data, uint64_t capacity, Minter *m) {
  m->data = data;
  m->capacity = capacity;
  if (capacity < S_ATTESTERS + 4) return false;
  m->attester_count = read_u32_le(data + S_ATTESTERS);
  if (m->attester_count > MAX_ATTESTERS) return false;
  m->local_domain_at = S_ATTESTERS + 4 + (uint64_t)m->attester_count * PUBKEY_BYTES;
  m->tokens_at = m->local_domain_at + 8;
  if (m->tokens_at + 4 > capacity) return false;
  m->local_domain = read_u32_le(data + m->local_domain_at);
  m->version = read_u32_le(data + m->local_domain_at + 4);
  m->token_count = read_u32_le(data + m->tokens_at);
  if (m->token_count > MAX_TOKENS) return false;
  m->bumps_at = m->tokens_at + 4 + (uint64_t)m->token_count * PUBKEY_BYTES;
  if (m->bumps_at + 4 > capacity || read_u32_le(data + m->bumps_at) != m->token_count) return false;
  m->end = m->bumps_at + 4 + m->token_count;
  return m->end <= capacity;
}

/* Account<GatewayMinter> with seeds = [b"gateway_minter"], bump = state.bump: owned by us, our
 * discriminator, at the PDA of its stored bump. */
static __attribute__((noinline)) uint64_t load_minter(RawAccount *a, const uint8_t *program_id, Minter *m) {
  TRY(check_state_owner(a, program_id, MINTER_DISCRIMINATOR));
  if (!parse_minter(a->data, a->data_len, m)) return ANCHOR_ACCOUNT_DISCRIMINATOR_MISMATCH;
  return check_state_address(a, program_id, SEED_MINTER, sizeof(SEED_MINTER));
}

/* The supported mints and their custody bumps, for check_custody. */
static void minter_tokens(const Minter *m, Tokens *t) {
  t->mints = m->data + m->tokens_at + 4;
  t->count = m->token_count;
  t->bumps = m->data + m->bumps_at + 4;
}

/* Circle's minter refuses a bad custody account with its own InvalidCustodyTokenAccount. */
static void custody_rules(CustodyRules *r) {
  r->seed = SEED_CUSTODY;
  r->seed_len = sizeof(SEED_CUSTODY);
  r->not_token_account = ERR_INVALID_CUSTODY_TOKEN_ACCOUNT;
  r->wrong_mint = ERR_INVALID_CUSTODY_TOKEN_ACCOUNT;
  r->wrong_owner = ERR_INVALID_CUSTODY_TOKEN_ACCOUNT;
  r->wrong_address = ERR_INVALID_CUSTODY_TOKEN_ACCOUNT;
  r->not_supported = ERR_TOKEN_NOT_SUPPORTED;
  r->too_many_tokens = ERR_MAX_TOKENS_SUPPORTED;
}

/* ------------------------------------------------------------------------------------------------
 * initialize — accounts: 0 payer (s, w), 1 upgrade authority (s), 2 gateway_minter (w, PDA created
 * here), 3 program data, 4 this program, 5 system program, 6 event authority, 7 this program
 * data: [12, 2], local_domain u32
 * Circle's checks 1 against the ProgramData's upgrade authority; ours, placed without the upgradeable
 * loader, has no ProgramData, and the first caller becomes owner (the embedded chain calls it at genesis).
 * ---------------------------------------------------------------------------------------------- */

static __attribute__((noinline)) uint64_t process_initialize(const Input *in) {
  if (in->data_len != 2 + 4) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;
  uint8_t bump;
  SolBytes seed; /* field by field: see check_event_accounts */
  seed.addr = SEED_MINTER;
  seed.len = sizeof(SEED_MINTER);
  TRY(check_initialize(in, &seed, &bump));
  TRY(create_state(in, &seed, bump, MINTER_SPACE, MINTER_DISCRIMINATOR));
  const uint8_t *authority = in->accounts[1]->key;
  uint8_t *d = in->accounts[2]->data;
  copy32(d + S_OWNER, authority);
  copy32(d + S_PAUSER, authority);
  copy32(d + S_TOKEN_CONTROLLER, authority);
  d[S_PAUSED] = 0;
  /* attesters: empty vec at S_ATTESTERS; then local_domain, version, two empty vecs. */
  write_u32_le(d + S_ATTESTERS + 4, read_u32_le(in->data + 2));
  write_u32_le(d + S_ATTESTERS + 8, MINTER_VERSION);
  LOG("gateway_minter: initialized");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * add_attester — accounts: 0 owner (s), 1 gateway_minter (w), 2 event authority, 3 this program
 * data: [12, 7], attester [32] (an EVM address, left-padded with 12 zero bytes)
 * ---------------------------------------------------------------------------------------------- */

static __attribute__((noinline)) uint64_t process_add_attester(const Input *in) {
  Minter m;
  TRY(check_owner_accounts(in));
  TRY(load_minter(in->accounts[1], in->program_id, &m));
  if (!key_eq(in->accounts[0]->key, m.data + S_OWNER)) return ERR_INVALID_AUTHORITY;
  KeyListRules r;
  r.max = MAX_ATTESTERS;
  r.invalid = ERR_INVALID_ATTESTER;
  r.full = ERR_ATTESTER_LIMIT_EXCEEDED;
  Serialized s = {m.data, m.capacity, m.end};
  TRY(add_key(in, &r, &s, S_ATTESTERS));
  LOG("gateway_minter: attester added");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * add_token — accounts: 0 payer (s, w), 1 token controller (s), 2 gateway_minter (w), 3 token mint,
 * 4 custody token account (w, PDA ["gateway_minter_custody", mint], created here if absent),
 * 5 token program, 6 system program, 7 event authority, 8 this program
 * data: [12, 9]
 * ---------------------------------------------------------------------------------------------- */

static __attribute__((noinline)) uint64_t process_add_token(const Input *in) {
  if (in->data_len != 2) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;
  if (in->account_count < 9) return ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS;
  Minter m;
  TRY(check_admin_accounts(in));
  TRY(load_minter(in->accounts[2], in->program_id, &m));
  if (!key_eq(in->accounts[1]->key, m.data + S_TOKEN_CONTROLLER)) return ERR_INVALID_AUTHORITY;
  CustodyRules r;
  custody_rules(&r);
  Tokens t;
  minter_tokens(&m, &t);
  Serialized s = {m.data, m.capacity, m.end};
  TRY(add_token(in, &r, &t, &s, m.tokens_at));
  LOG("gateway_minter: token added");
  return 0;
}

/* The minter PDA's signature: ["gateway_minter", bump]. */
typedef struct {
  SolBytes seeds[2];
  SolSignerSeeds signer;
} MinterSigner;

static void minter_signer(const Minter *m, MinterSigner *s) {
  s->seeds[0].addr = SEED_MINTER;
  s->seeds[0].len = sizeof(SEED_MINTER);
  s->seeds[1].addr = m->data + STATE_BUMP;
  s->seeds[1].len = 1;
  s->signer.addr = s->seeds;
  s->signer.len = 2;
}

/* ------------------------------------------------------------------------------------------------
 * mint_custody (ours) — accounts: 0 token controller (s), 1 gateway_minter, 2 token mint (w),
 * 3 custody token account (w), 4 token program
 * data: [12, 100], amount u64
 * The embedded USDC's mint authority is the minter PDA; the token controller (the dev Gateway) mints
 * the custody float that gatewayMint pays from, as Circle funds its custody off-chain.
 * ---------------------------------------------------------------------------------------------- */

static __attribute__((noinline)) uint64_t process_mint_custody(const Input *in) {
  if (in->data_len != 2 + 8) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;
  if (in->account_count < 5) return ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS;
  RawAccount *controller = in->accounts[0];
  RawAccount *state = in->accounts[1];
  RawAccount *mint = in->accounts[2];
  RawAccount *custody = in->accounts[3];
  uint64_t amount = read_u64(in->data + 2);
  Minter m;
  TRY(check_signer(controller));
  TRY(load_minter(state, in->program_id, &m));
  if (!key_eq(controller->key, m.data + S_TOKEN_CONTROLLER)) return ERR_INVALID_AUTHORITY;
  TRY(check_writable(mint));
  TRY(check_writable(custody));
  TRY(check_program(in->accounts[4], TOKEN_PROGRAM_ID));
  CustodyRules r;
  custody_rules(&r);
  Tokens t;
  minter_tokens(&m, &t);
  TRY(check_custody(&r, &t, custody, state->key, in->program_id));
  if (!key_eq(custody->data + TOKEN_ACCOUNT_MINT, mint->key)) return ERR_TOKEN_NOT_SUPPORTED;
  if (amount == 0) return ERR_INVALID_BURN_AMOUNT;
  MinterSigner s;
  minter_signer(&m, &s);
  TRY(token_mint_to(mint, custody, state, amount, &s.signer));
  LOG("gateway_minter: custody minted");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * gateway_mint — accounts: 0 payer (s, w), 1 destination caller (s), 2 gateway_minter, 3 system
 * program, 4 token program, 5 event authority, 6 this program; then per attestation element:
 * custody token account (w), recipient token account (w), used transfer spec hash PDA (w)
 * data: [12, 0], attestation Vec<u8>, signature Vec<u8> (Borsh: u32 LE length, bytes)
 * ---------------------------------------------------------------------------------------------- */

/* The signer of keccak256("\x19Ethereum Signed Message:\n32" ‖ keccak256(attestation)) is an enabled
 * attester (recover_evm_signer in shared/src/lib.rs: v 27 or 28, low s, the address in a bytes32). */
static __attribute__((noinline)) uint64_t verify_attester(const Minter *m, const SolBytes *attestation,
                                                          const uint8_t *signature, uint64_t signature_len) {
  uint8_t signer[32];
  if (!recover_evm_signer(attestation, signature, signature_len, signer)) return ERR_INVALID_ATTESTER_SIGNATURE;
  if (key_index(m->data + S_ATTESTERS + 4, m->attester_count, signer) < 0) return ERR_INVALID_ATTESTER_SIGNATURE;
  return 0;
}

/* Marks the element's transfer spec hash used (see mark_transfer_spec_hash). */
static __attribute__((noinline)) uint64_t use_transfer_spec_hash(const Input *in, const uint8_t *hash,
                                                                 RawAccount *account) {
  UsedHashRules r;
  r.discriminator = USED_HASH_DISCRIMINATOR;
  r.invalid_account = ERR_INVALID_TRANSFER_SPEC_HASH_ACCOUNT;
  r.already_used = ERR_TRANSFER_SPEC_HASH_ALREADY_USED;
  return mark_transfer_spec_hash(in, &r, hash, account);
}

typedef struct {
  const Input *in;
  const Minter *m;
  const uint8_t *element;
  uint64_t accounts_at; /* index of the element's custody account */
} Element;

static __attribute__((noinline)) uint64_t mint_element(const Element *e) {
  const Input *in = e->in;
  RawAccount *state = in->accounts[2];
  RawAccount *custody = in->accounts[e->accounts_at];
  RawAccount *recipient = in->accounts[e->accounts_at + 1];
  RawAccount *used = in->accounts[e->accounts_at + 2];
  const uint8_t *token = e->element + E_DESTINATION_TOKEN;
  CustodyRules r;
  custody_rules(&r);
  Tokens t;
  minter_tokens(e->m, &t);
  TRY(check_custody(&r, &t, custody, state->key, in->program_id));
  if (!is_token_account(recipient)) return ERR_INVALID_DESTINATION_TOKEN_ACCOUNT;
  TRY(use_transfer_spec_hash(in, e->element + E_TRANSFER_SPEC_HASH, used));
  if (!key_eq(custody->data + TOKEN_ACCOUNT_MINT, token)) return ERR_DESTINATION_TOKEN_MISMATCH;
  if (!key_eq(recipient->data + TOKEN_ACCOUNT_MINT, token)) return ERR_DESTINATION_TOKEN_MISMATCH;
  if (!key_eq(recipient->key, e->element + E_DESTINATION_RECIPIENT)) return ERR_DESTINATION_RECIPIENT_MISMATCH;
  uint64_t value = read_u64_be(e->element + E_VALUE);
  if (value == 0) return ERR_INVALID_ATTESTATION_VALUE;
  MinterSigner s;
  minter_signer(e->m, &s);
  TRY(token_transfer(custody, recipient, state, value, &s.signer));
  sol_log_64_(value, token_amount(custody), token_amount(recipient), 0, 0);
  return 0;
}

/* The attestation set's header checks, in Circle's order, after the signature. */
static __attribute__((noinline)) uint64_t check_header(const Input *in, const Minter *m, const uint8_t *a,
                                                       uint64_t len) {
  if (len < A_ATTESTATIONS + E_HOOK_DATA) return ERR_ATTESTATION_TOO_SHORT;
  if (read_u32_be(a) != ATTESTATION_SET_MAGIC) return ERR_ATTESTATION_MAGIC_MISMATCH;
  if (read_u32_be(a + A_NUM_ATTESTATIONS) == 0) return ERR_EMPTY_ATTESTATION_SET;
  if (read_u32_be(a + A_VERSION) != m->version) return ERR_VERSION_MISMATCH;
  SolClock clock;
  sol_get_clock_sysvar(&clock);
  if (read_u64_be(a + A_MAX_BLOCK_HEIGHT) < clock.slot) return ERR_ATTESTATION_EXPIRED;
  const uint8_t *caller = a + A_DESTINATION_CALLER;
  if (!is_zero32(caller) && !key_eq(caller, in->accounts[1]->key)) return ERR_DESTINATION_CALLER_MISMATCH;
  if (read_u32_be(a + A_DESTINATION_DOMAIN) != m->local_domain) return ERR_DESTINATION_DOMAIN_MISMATCH;
  if (!key_eq(a + A_DESTINATION_CONTRACT, in->program_id)) return ERR_DESTINATION_CONTRACT_MISMATCH;
  return 0;
}

static __attribute__((noinline)) uint64_t process_gateway_mint(const Input *in) {
  if (in->account_count < 7) return ANCHOR_ACCOUNT_NOT_ENOUGH_KEYS;
  RawAccount *payer = in->accounts[0];
  RawAccount *state = in->accounts[2];
  Minter m;
  TRY(check_signer(payer));
  TRY(check_writable(payer));
  TRY(check_signer(in->accounts[1]));
  TRY(load_minter(state, in->program_id, &m));
  if (m.data[S_PAUSED] != 0) return ERR_PROGRAM_PAUSED;
  TRY(check_program(in->accounts[3], SYSTEM_PROGRAM_ID));
  TRY(check_program(in->accounts[4], TOKEN_PROGRAM_ID));
  TRY(check_event_accounts(in->accounts[5], in->accounts[6], in->program_id));

  /* GatewayMintParams { attestation: Vec<u8>, signature: Vec<u8> }, nothing after. */
  if (in->data_len < 2 + 4) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;
  uint64_t attestation_len = read_u32_le(in->data + 2);
  if (in->data_len < 2 + 4 + attestation_len + 4) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;
  const uint8_t *attestation = in->data + 2 + 4;
  uint64_t signature_len = read_u32_le(attestation + attestation_len);
  const uint8_t *signature = attestation + attestation_len + 4;
  if (in->data_len != 2 + 4 + attestation_len + 4 + signature_len) return ANCHOR_INSTRUCTION_DID_NOT_DESERIALIZE;

  SolBytes message = {attestation, attestation_len};
  TRY(verify_attester(&m, &message, signature, signature_len));
  TRY(check_header(in, &m, attestation, attestation_len));
  uint64_t count = read_u32_be(attestation + A_NUM_ATTESTATIONS);
  /* Every element needs its three accounts and no account is left over; Input holds MAX_ACCOUNTS. */
  if (in->account_count != 7 + 3 * count || in->account_count > MAX_ACCOUNTS)
    return ERR_REMAINING_ACCOUNTS_LENGTH_MISMATCH;

  uint64_t offset = A_ATTESTATIONS;
  for (uint64_t i = 0; i < count; i++) {
    /* The element's fixed part and its hook data lie inside the attestation (the iterator's checks). */
    if (attestation_len - offset < E_HOOK_DATA) return ERR_ATTESTATION_TOO_SHORT;
    uint64_t length = E_HOOK_DATA + (uint64_t)read_u32_be(attestation + offset + E_HOOK_DATA_LENGTH);
    if (attestation_len - offset < length) return ERR_ATTESTATION_TOO_SHORT;
    if (i + 1 == count && offset + length != attestation_len) return ERR_ATTESTATION_TOO_LONG;
    Element e = {in, &m, attestation + offset, 7 + 3 * i};
    TRY(mint_element(&e));
    offset += length;
  }
  LOG("gateway_minter: minted");
  return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Entrypoint
 * ---------------------------------------------------------------------------------------------- */

static uint64_t dispatch(const Input *in) {
  if (in->data_len < 2 || in->data[0] != IX_NAMESPACE) return ANCHOR_INSTRUCTION_FALLBACK_NOT_FOUND;
  switch (in->data[1]) {
    case IX_GATEWAY_MINT:
      return process_gateway_mint(in);
    case IX_INITIALIZE:
      return process_initialize(in);
    case IX_ADD_ATTESTER:
      return process_add_attester(in);
    case IX_ADD_TOKEN:
      return process_add_token(in);
    case IX_MINT_CUSTODY:
      return process_mint_custody(in);
    default:
      return ANCHOR_INSTRUCTION_FALLBACK_NOT_FOUND;
  }
}

GATEWAY_ENTRYPOINT("gateway_minter: error ")
