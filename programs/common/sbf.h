/*
 * Minimal Solana SBPF v0 ABI for a program built with stock clang (-target bpf -mcpu=v1):
 * the serialized input layout, the C CPI structures and the syscalls the programs use (programs/htlc, programs/amm,
 * programs/gateway-minter, programs/gateway-wallet).
 * Written from the public ABI; no Solana SDK header is needed.
 */
#ifndef SBF_H
#define SBF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PUBKEY_BYTES 32
/* Realloc room the runtime leaves after each account's data in the aligned (v0) input. */
#define MAX_PERMITTED_DATA_INCREASE (10 * 1024)
/* dup_info value of an account's first occurrence in the input. */
#define NON_DUP_MARKER 0xff

/* One account as the runtime serializes it (aligned layout); `data` is followed by realloc room. */
typedef struct {
  uint8_t dup_info;
  uint8_t is_signer;
  uint8_t is_writable;
  uint8_t executable;
  uint8_t padding[4];
  uint8_t key[PUBKEY_BYTES];
  uint8_t owner[PUBKEY_BYTES];
  uint64_t lamports;
  uint64_t data_len;
  uint8_t data[];
} RawAccount;

/* --- Cross-program invocation, C ABI (sol_invoke_signed_c) --- */

typedef struct {
  const uint8_t *pubkey;
  bool is_writable;
  bool is_signer;
} SolAccountMeta;

typedef struct {
  const uint8_t *program_id;
  const SolAccountMeta *accounts;
  uint64_t account_len;
  const uint8_t *data;
  uint64_t data_len;
} SolInstruction;

typedef struct {
  const uint8_t *key;
  uint64_t *lamports;
  uint64_t data_len;
  uint8_t *data;
  const uint8_t *owner;
  uint64_t rent_epoch;
  bool is_signer;
  bool is_writable;
  bool executable;
} SolAccountInfo;

/* A seed (and, for sha256, a byte slice): pointer + length. */
typedef struct {
  const uint8_t *addr;
  uint64_t len;
} SolBytes;

typedef struct {
  const SolBytes *addr;
  uint64_t len;
} SolSignerSeeds;

typedef struct {
  uint64_t slot;
  int64_t epoch_start_timestamp;
  uint64_t epoch;
  uint64_t leader_schedule_epoch;
  int64_t unix_timestamp;
} SolClock;

/* The Rent sysvar as the syscall writes it: u64, f64 (kept as raw bits), u8, padding. */
typedef struct {
  uint64_t lamports_per_byte_year;
  uint64_t exemption_threshold_bits;
  uint8_t burn_percent;
  uint8_t padding[7];
} SolRent;

/* --- Syscalls (resolved by the loader by name) --- */

void sol_log_(const char *message, uint64_t len);
void sol_log_64_(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e);
uint64_t sol_sha256(const SolBytes *slices, uint64_t count, uint8_t *result);
uint64_t sol_get_clock_sysvar(SolClock *clock);
uint64_t sol_get_rent_sysvar(SolRent *rent);
uint64_t sol_invoke_signed_c(const SolInstruction *instruction, const SolAccountInfo *account_infos,
                             uint64_t account_infos_len, const SolSignerSeeds *signers, uint64_t signers_len);
void sol_set_return_data(const uint8_t *data, uint64_t len);
uint64_t sol_try_find_program_address(const SolBytes *seeds, uint64_t seeds_len, const uint8_t *program_id,
                                      uint8_t *address, uint8_t *bump);
uint64_t sol_create_program_address(const SolBytes *seeds, uint64_t seeds_len, const uint8_t *program_id,
                                    uint8_t *address);
uint64_t sol_keccak256(const SolBytes *slices, uint64_t count, uint8_t *result);
/* `result` receives the 64-byte uncompressed public key (x ‖ y) of the signer of `hash`. */
uint64_t sol_secp256k1_recover(const uint8_t *hash, uint64_t recovery_id, const uint8_t *signature,
                               uint8_t *result);

#define LOG(literal) sol_log_((literal), sizeof(literal) - 1)

#endif
