// What the page's parts share: its config (inline JSON from the service), the taker client it swaps with —
// the @rfq-maker/taker package, its secrets in this browser's IndexedDB — and the page's state.

import {
  type Follower,
  type LockReview,
  type Pair,
  type Quote,
  type ReviewCheck,
  type SwapRecord,
  TakerClient,
  type TakerWallet,
} from '@rfq-maker/taker';
import { IndexedDbSwapStore } from '@rfq-maker/taker/indexeddb';

export const config = JSON.parse(document.getElementById('swap-config')?.textContent ?? '{}') as {
  devWallet?: boolean;
  /** The RPC the maker's lock is verified through: the service's dev RPC, or the cluster RPC configured. */
  rpcUrl?: string | null;
  programId?: string;
  /**
   * Off the embedded chain: the maker's key and the mints the page pins (the operator's configuration), which
   * the service's answers are held to. Absent on the embedded chain, where the page trusts the service.
   */
  pins?: { maker: string; mints: Record<string, string> } | null;
};

/** The swaps and the dev wallet's key live in one database, as they always have on this page. */
export const store = new IndexedDbSwapStore({
  database: 'rfq-swap-page',
  storeName: 'swaps',
  upgrade: (db) => {
    if (!db.objectStoreNames.contains('keys')) db.createObjectStore('keys', { keyPath: 'id' });
  },
});

/** The RPC the page checks, simulates and verifies through. */
export const rpcUrl = new URL(config.rpcUrl ?? '/v1/dev/rpc', location.origin).href;

export const client = new TakerClient({
  serviceUrl: location.origin,
  // Without an RPC of its own the page cannot verify: it offers no redeem (swap.ts), and a read there fails.
  rpcUrl,
  store,
  ...(config.programId ? { programId: config.programId } : {}),
  ...(config.pins ? { maker: config.pins.maker, mints: config.pins.mints } : {}),
});

export const rpcConfigured = Boolean(config.rpcUrl);

/** A connected wallet as the swap flow uses it: its reference (kept with each swap) and its signer. */
export interface SwapWallet extends TakerWallet {
  kind: 'dev' | 'standard';
  name: string;
  address: string;
}

export type Command = 'resume' | 'abandon' | 'redeem' | 'redeem-wallet' | 'refund' | 'forget';

export const state = {
  pairs: [] as Pair[],
  dev: null as SwapWallet | null,
  wallet: null as SwapWallet | null,
  quote: null as Quote | null,
  /** The swap shown in the trade section, and what follows it. */
  active: null as SwapRecord | null,
  follower: null as Follower | null,
  /** One command at a time on the active swap. */
  busy: false,
  /** The active swap's lock as last reviewed: what its wallet would sign, or why it must not (review.ts). */
  review: null as LockReviewState | null,
};

/** A lock reviewed for a swap (by its secret hash): passed, with what the wallet will sign, or refused. */
export type LockReviewState =
  | { secretHash: string; outcome: 'passed'; review: LockReview }
  | { secretHash: string; outcome: 'refused'; checks: readonly ReviewCheck[] };
