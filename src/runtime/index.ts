// The trade runtime: trades as virtual actors (host.ts), the chain watcher (watcher.ts), deadlines from an
// index (scheduler.ts), the commands (commands.ts) and the read-only views (queries.ts), composed per run
// in runtime.ts; effects/ makes the machine's effects real on the chain port (one file each); exposure.ts keeps
// the commitment policy's book of trades gone on a confirmed taker lock; gateway.ts opens the Gateway the
// config names and follows its unified balance, which inventory.ts counts beside the Solana balances.

export type { SettlementResult } from './commands.ts';
export { isRuntimeError, RuntimeError, type RuntimeErrorCode, type RuntimeInput } from './errors.ts';
export {
  CONFIRMED_LOCK_REFUSALS,
  ConfirmedExposure,
  type ConfirmedLockPolicy,
  type ConfirmedLockRefusal,
  type ExposureView,
} from './exposure.ts';
export { MakerInventory, withUnifiedBalance } from './inventory.ts';
export type { RuntimeLogger } from './logger.ts';
export type { TradePage, TradeReading } from './queries.ts';
export { ChainReachability, type Outage } from './reachability.ts';
export { type RuntimeOptions, TradeRuntime } from './runtime.ts';
export { eventPayload } from './trade-record.ts';
export type { TradeTransition, TransitionListener } from './transitions.ts';
