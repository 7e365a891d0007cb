// How a TakerClient is set up: the options a front end passes, and the defaults behind each bound — what the
// client checks transactions against, how long it lets funds be locked, and when it reveals.
import type { SwapStore } from './store.ts';

/**
 * Chain seconds the maker escrow must have left for the client to reveal, on a real cluster: what one
 * redeem needs to land under load. A blockhash lives 150 blocks — 60 s at 400 ms slots, 70–90 s when slots
 * stretch to 450–600 ms under load — and a redeem that has not landed by then must be rebuilt and sent again;
 * reaching finalized takes some 32 slots (~13 s) more. 90 s covers one whole blockhash life under load with
 * its confirmation. The service's defaults leave room for it: its maker timelock is 300 s and it locks only
 * with at least 120 s left (its minimum redeem window; 180 s and 90 s at its real-cluster floors).
 */
export const REAL_CLUSTER_REVEAL_MARGIN_SECONDS = 90;
/** The same on the service's embedded chain, which lands a transaction within the request that sends it. */
export const EMBEDDED_REVEAL_MARGIN_SECONDS = 10;
/** How long after a reveal to the service the client waits for the service's redeem before its own. */
export const DEFAULT_SERVICE_REDEEM_SECONDS = 45;
/** The longest the client lets the taker's funds be locked (the service's default taker timelock: 900 s). */
export const DEFAULT_MAX_LOCK_SECONDS = 3_600;
/** The most a lock may bid above the base fee: 0.001 SOL (the service's own bound for its swaps' fees). */
export const DEFAULT_MAX_PRIORITY_FEE_LAMPORTS = 1_000_000n;
/** The highest compute-unit limit a transaction the client signs may set (a lock takes well under 100,000). */
export const DEFAULT_MAX_COMPUTE_UNIT_LIMIT = 400_000;

export interface TakerClientOptions {
  /** The maker service's origin. */
  serviceUrl: string;
  /** The taker's own Solana JSON-RPC endpoint: what the maker's lock is verified through. */
  rpcUrl: string;
  /** Where secrets live: IndexedDbSwapStore in a browser, FileSwapStore on Node. */
  store: SwapStore;
  /**
   * The HTLC program the taker trusts. Required on any cluster but the service's embedded chain (there the
   * default, the repository's program id, is the one the service deploys).
   */
  programId?: string;
  /**
   * The maker's public key: the lock's counterparty and the maker escrow's initializer. Required on any
   * cluster but the service's embedded chain.
   */
  maker?: string | null;
  /**
   * The mints the taker knows its assets by (symbol → mint, e.g. from its wallet's token list), over the
   * built-in canonical mints of mainnet and devnet (CANONICAL_MINTS). A quote naming another mint for a symbol
   * is refused. On any cluster but the service's embedded chain each asset of a swap must have one here or in
   * the built-in table; on the embedded chain the quote's own mints are taken.
   */
  mints?: Record<string, string>;
  /**
   * Chain seconds the maker escrow must have left for the client to reveal: what a redeem needs to land.
   * Default REAL_CLUSTER_REVEAL_MARGIN_SECONDS (90), or EMBEDDED_REVEAL_MARGIN_SECONDS (10) on the service's
   * embedded chain.
   */
  revealMarginSeconds?: number;
  /** Chain seconds the service gets to redeem after a reveal to it before the client redeems itself (45). */
  serviceRedeemSeconds?: number;
  /** The longest a lock may hold the taker's funds, counted from now (3,600 s). */
  maxLockSeconds?: number;
  /** Bounds on what a transaction the wallet signs may bid for compute (1,000,000 lamports; 400,000 units). */
  maxPriorityFeeLamports?: bigint;
  maxComputeUnitLimit?: number;
  /**
   * Whether to trust the service for program, maker and mints when the taker's RPC is the service's own
   * embedded chain (default true). False: the client always needs them pinned.
   */
  trustEmbeddedService?: boolean;
  /** What chain reads wait for (default 'finalized': a lock that cannot be rolled back). */
  commitment?: 'processed' | 'confirmed' | 'finalized';
  /** An unsigned lock older than this is rebuilt on a fresh blockhash before signing (30 s). */
  lockFreshMs?: number;
  fetch?: typeof fetch;
  rpcPollMs?: number;
}
