// @rfq-maker/taker: a taker client any front end can trust. Browser-safe (fetch, WebCrypto, streams);
// the IndexedDB store is '@rfq-maker/taker/indexeddb', the file store for Node '@rfq-maker/taker/node'.
export {
  type AmountView,
  type Asset,
  FINAL_STATUSES,
  type NextAction,
  type Pair,
  type Quote,
  type RfqAnswer,
  type RfqRequest,
  type RiskRejection,
  type ServiceApi,
  type ServiceOptions,
  type Settlement,
  type SettlementStatus,
  type Substate,
  serviceApi,
  type Trade,
  type TradeEvent,
} from './api.ts';
export { fromBase64, fromHex, toBase64, toHex } from './bytes.ts';
export {
  isOlder,
  type RedeemOutcome,
  type RedeemStep,
  type Route,
  TakerClient,
} from './client.ts';
export {
  type ErrorCode,
  type ErrorEnvelope,
  HttpError,
  isMakerError,
  LockNotVerifiedError,
  LockRefusedError,
  MakerError,
  NetworkError,
  NotRefundableError,
  type ReviewCheck,
  RpcCallError,
  TakerStateError,
  TransactionFailedError,
  TransactionRefusedError,
  TrustNotPinnedError,
} from './errors.ts';
export { type Follower, type FollowMode, type FollowOptions, followTrade, isSettled } from './follow.ts';
export {
  associatedTokenAddress,
  DEFAULT_HTLC_PROGRAM_ID,
  decodeClock,
  decodeEscrow,
  decodeTokenAccount,
  type Escrow,
  makerEscrowAddress,
  takerEscrowAddress,
  vaultAddress,
} from './htlc.ts';
export {
  COMPUTE_BUDGET_PROGRAM_ID,
  checkLockTransaction,
  checkRedeemTransaction,
  checkRefundTransaction,
  checkTransaction,
  type DecodedInstruction,
  type DecodedLock,
  type DecodedTransaction,
  describeInstruction,
  ESCROW_RENT_LAMPORTS,
  type InstructionKind,
  LAMPORTS_PER_SIGNATURE,
  type LockAgreement,
  lockAgreement,
  type RedeemExpectation,
  type RefundExpectation,
  redeemExpectation,
  refundExpectation,
  TOKEN_2022_PROGRAM_ID,
  TRANSACTION_CHECK_NAMES,
  type TransactionCheck,
  type TransactionCheckName,
  type TransactionCheckResult,
  type TransactionExpectation,
} from './lock-check.ts';
export {
  type AddressLookup,
  type DecodedMessage,
  decodeMessage,
  type MessageAccount,
  type MessageInstruction,
} from './message.ts';
export {
  DEFAULT_MAX_COMPUTE_UNIT_LIMIT,
  DEFAULT_MAX_LOCK_SECONDS,
  DEFAULT_MAX_PRIORITY_FEE_LAMPORTS,
  DEFAULT_SERVICE_REDEEM_SECONDS,
  EMBEDDED_REVEAL_MARGIN_SECONDS,
  REAL_CLUSTER_REVEAL_MARGIN_SECONDS,
  type TakerClientOptions,
} from './options.ts';
export { type LockReview, type LockSummary, lockSummary, watchedAccounts } from './review.ts';
export { type AccountView, type ChainRead, type Simulated, type TakerRpc, takerRpc } from './rpc.ts';
export { newSecret, type Secret } from './secret.ts';
export {
  type AccountState,
  type BalanceChange,
  checkLockSimulation,
  type LockSimulation,
  SIMULATION_CHECK_NAMES,
  type SimulationCheck,
  type SimulationCheckName,
  type SimulationCheckResult,
} from './simulation-check.ts';
export { MemorySwapStore, type SwapRecord, type SwapStore, type WalletRef } from './store.ts';
export {
  isSignedBy,
  parseTransaction,
  redeemTransaction,
  refundTransaction,
  signTransactionBytes,
} from './transactions.ts';
export {
  CANONICAL_MINTS,
  CLUSTER_GENESIS_HASHES,
  decideTrust,
  knownMints,
  missingPins,
  type PublicCluster,
  type Trust,
  type TrustInfo,
} from './trust.ts';
export {
  CHECK_NAMES,
  type Check,
  type CheckName,
  checkMakerLock,
  type LockTerms,
  type Verification,
} from './verify.ts';
export { cryptoKeyWallet, generateWalletKeys, type TakerWallet, type WalletKeys } from './wallet.ts';
