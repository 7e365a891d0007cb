/*
 * What programs/gateway-minter and programs/gateway-wallet share: the Anchor framework's error numbers for
 * the account checks Anchor would make in Circle's programs, Borsh (little-endian) and Gateway message
 * (big-endian) integers, Borsh vectors of keys inside a fixed-size account, and the #[event_cpi] accounts.
 *
 * The includer defines MAX_ACCOUNTS first (see runtime.h).
 */
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

#pragma clang diagnostic pop

#endif
