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
export { isOlder, type RedeemOutcome, type Route, TakerClient, type TakerClientOptions } from './client.ts';
export {
  type ErrorCode,
  type ErrorEnvelope,
  HttpError,
  isMakerError,
  LockNotVerifiedError,
  MakerError,
  NetworkError,
  NotRefundableError,
  RpcCallError,
  TakerStateError,
  TransactionFailedError,
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
export { type AccountView, type ChainRead, type TakerRpc, takerRpc } from './rpc.ts';
export { newSecret, type Secret } from './secret.ts';
export { MemorySwapStore, type SwapRecord, type SwapStore, type WalletRef } from './store.ts';
export {
  isSignedBy,
  parseTransaction,
  redeemTransaction,
  refundTransaction,
  signTransactionBytes,
} from './transactions.ts';
export {
  CHECK_NAMES,
  type Check,
  type CheckName,
  checkMakerLock,
  type LockTerms,
  type Verification,
} from './verify.ts';
export { cryptoKeyWallet, generateWalletKeys, type TakerWallet, type WalletKeys } from './wallet.ts';
