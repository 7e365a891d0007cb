// Front door of the HTLC program client: addresses, instruction builders, escrow decoding, error names
// and the committed program binary. Built on @solana/web3.js 1.x types.

export {
  DEFAULT_HTLC_PROGRAM_ID,
  makerEscrowAddress,
  takerEscrowAddress,
  vaultAddress,
} from './addresses.ts';
export {
  HTLC_ERROR_BASE,
  HTLC_ERROR_NAMES,
  HTLC_ERRORS,
  type HtlcErrorName,
  htlcErrorCode,
  htlcErrorName,
} from './errors.ts';
export {
  cancelInstruction,
  closeInstruction,
  encodeLockData,
  HTLC_INSTRUCTION_TAGS,
  LOCK_DATA_SIZE,
  type LockArgs,
  lockEscrowAddress,
  lockInstruction,
  MAKER_LOCK_DATA_SIZE,
  redeemInstruction,
  refundInstruction,
  type TakerEscrowExpectation,
} from './instructions.ts';
export {
  decodeEscrow,
  ESCROW_KIND_CODES,
  ESCROW_OFFSETS,
  ESCROW_STATUS_CODES,
  type EscrowKind,
  type EscrowState,
  type EscrowStateWithBumps,
  type EscrowStatus,
  HTLC_ESCROW_SIZE,
  HTLC_ESCROW_VERSION,
  isEscrowData,
} from './layout.ts';
export { HTLC_PROGRAM_PATH, loadHtlcProgram } from './program.ts';
