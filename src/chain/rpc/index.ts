// The `rpc` chain port: any Solana JSON-RPC cluster through web3.js Connection, over one endpoint or
// several (endpoints.ts: reads fail over, "not found" is believed only from a current endpoint; send.ts:
// sends go to all). Maker transactions carry a priority fee and are rebroadcast (same signed bytes) until
// they land or their blockhash expires; taker locks are trusted only at the commitment the runtime asks
// for (finalized).

import {
  type AccountInfo,
  type Connection,
  type Keypair,
  PublicKey,
  type RpcResponseAndContext,
  type SignatureStatus,
  SYSVAR_CLOCK_PUBKEY,
  VersionedTransaction,
  type VersionedTransactionResponse,
} from '@solana/web3.js';
import DataLoader from 'dataloader';
import { decodeBase58 } from '../../vocabulary/base58.ts';
import { escrowFromAccount, nameError, pollSignature, reaches, sleep } from '../common.ts';
import { ChainError, describeTransactionError, type TransactionErrorJson } from '../errors.ts';
import type {
  AccountFeed,
  ChainPort,
  ChainTransaction,
  Commitment,
  LandResult,
  SignatureState,
  SignedMakerTransaction,
  TokenBalanceChange,
} from '../port.ts';
import type { PriorityFeePolicy } from '../priority.ts';
import { priceUpdateFromAccount } from '../pyth/account.ts';
import { settlementBuilders } from '../settlement.ts';
import { type FastSigner, fastSigner, loadKeypairFile } from '../signer.ts';
import { ata, classifyMint, readTokenAccount, TOKEN_PROGRAM_ID } from '../token.ts';
import { signMakerInstructions } from '../v0.ts';
import { decodeBase64Transaction, missingSigners, signatureOf, type WireTransaction } from '../wire.ts';
import { type Answer, Endpoints } from './endpoints.ts';
import { openProgramFeed, websocketUrlFor } from './feed.ts';
import { broadcastToAll } from './send.ts';

export interface RpcChainOptions {
  /** One JSON-RPC endpoint; or give `urls`. */
  url?: string;
  /**
   * Several JSON-RPC endpoints, the primary first: every send goes to all of them, a read that gets no
   * answer from one is asked of the next.
   */
  urls?: readonly string[];
  /**
   * The websocket (PubSub) endpoint pushes come from; default derived from the first URL as web3.js does
   * (port + 1). While it cannot be reached, the next endpoints' (derived) websockets are tried in turn.
   */
  wsUrl?: string;
  /** How many slots an endpoint may trail the best known slot and still be believed that something is absent. */
  maxSlotLag?: number;
  /** A request unanswered this long counts as no answer (default 15 s). */
  requestTimeoutMs?: number;
  /** With several endpoints, how often each one's slot is asked (default 2 s; 0: only when needed). */
  slotProbeIntervalMs?: number;
  programId: PublicKey | string;
  /** The maker key, or the path of a solana CLI keypair file. */
  makerKeypair?: Keypair;
  makerKeypairPath?: string;
  /** Priority fee of maker transactions, in micro-lamports per compute unit (0 = none), far from a deadline. */
  priorityFeeMicroLamports?: number;
  /** The most it rises to as a deadline nears (default: the base, i.e. no rise). */
  maxPriorityFeeMicroLamports?: number;
  /** How long before a deadline it starts to rise (default 120 s). */
  priorityFeeRampSeconds?: number;
  /** Compute-unit limit set on maker transactions when a priority fee is paid. */
  computeUnitLimit?: number;
  /** How often confirm() and land() poll. */
  pollIntervalMs?: number;
  /** How often land() rebroadcasts while the signature is unknown. */
  rebroadcastIntervalMs?: number;
}

const DEFAULT_UNIT_LIMIT = 200_000;
const DEFAULT_PRIORITY_RAMP_SECONDS = 120;
/** 25 slots of 400 ms: an endpoint ten seconds behind is not asked whether something exists. */
export const DEFAULT_MAX_SLOT_LAG = 25;
const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
const DEFAULT_SLOT_PROBE_MS = 2_000;

/** getMultipleAccounts takes at most 100 keys; this many chunks are in flight at once. */
const ACCOUNTS_PER_CALL = 100;
const CALLS_IN_FLIGHT = 4;

/** slot and unix_timestamp of the Clock sysvar's data. */
function decodeClock(info: AccountInfo<Buffer> | null): { slot: number; unix: bigint } {
  if (!info || info.data.length < 40) throw new ChainError('unavailable', 'no Clock sysvar in the answer');
  return { slot: Number(info.data.readBigUInt64LE(0)), unix: info.data.readBigInt64LE(32) };
}

/** A web3.js answer with its context, as the endpoints weigh it. */
const withSlot = <T>({ context, value }: RpcResponseAndContext<T>): Answer<T> => ({
  value,
  slot: context.slot,
});
/** The answer of a method that reports no slot: an absence in it is weighed by the endpoint's last slot. */
const noSlot = <T>(value: T): Answer<T> => ({ value, slot: null });

/** meta.pre/postTokenBalances merged by account; null when the node did not record them. */
function tokenBalancesOf(r: VersionedTransactionResponse): TokenBalanceChange[] | null {
  const pre = r.meta?.preTokenBalances;
  const post = r.meta?.postTokenBalances;
  if (!pre || !post) return null;
  // accountIndex counts the static keys, then the lookup tables' writable and readonly addresses.
  const keys = [
    ...r.transaction.message.staticAccountKeys,
    ...(r.meta?.loadedAddresses?.writable ?? []),
    ...(r.meta?.loadedAddresses?.readonly ?? []),
  ];
  const byIndex = new Map<number, { pre?: (typeof pre)[number]; post?: (typeof post)[number] }>();
  for (const b of pre) byIndex.set(b.accountIndex, { pre: b });
  for (const b of post) byIndex.set(b.accountIndex, { ...byIndex.get(b.accountIndex), post: b });
  return [...byIndex.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, { pre: before, post: after }]) => ({
      account: keys[index]?.toBase58() ?? '',
      mint: after?.mint ?? before?.mint ?? '',
      owner: after?.owner ?? before?.owner ?? '',
      pre: BigInt(before?.uiTokenAmount.amount ?? 0),
      post: BigInt(after?.uiTokenAmount.amount ?? 0),
    }));
}

/** Runs `work` over the items with at most `limit` in flight; answers in item order. */
async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/** What every read, send and feed of one rpc chain shares: built once by `openRpc`, passed explicitly. */
interface Rpc {
  programId: PublicKey;
  maker: FastSigner;
  endpoints: Endpoints;
  pollMs: number;
  rebroadcastMs: number;
  /** Pushes come from one websocket: the configured one (else the primary's), the others' while it is down. */
  wsUrls: string[];
  feeds: Set<AccountFeed>;
  /** Finalized states never change; failed-transaction names need a getTransaction, so keep them. */
  finalized: Map<string, SignatureState>;
  /**
   * Signature statuses asked for within one turn of the event loop, read in one getSignatureStatuses call (up
   * to 256, the method's limit): the watcher's fork checks of every trade riding on a confirmed lock, the
   * landing polls of many transactions. Never cached (a status moves); statusAnswer's rules per batch.
   */
  statuses: DataLoader<string, SignatureStatus | null>;
}

function openRpc(options: RpcChainOptions): Rpc {
  const programId =
    typeof options.programId === 'string' ? new PublicKey(options.programId) : options.programId;
  const keypair =
    options.makerKeypair ?? (options.makerKeypairPath ? loadKeypairFile(options.makerKeypairPath) : null);
  if (!keypair) throw new Error('rpc chain: makerKeypair or makerKeypairPath is required');
  const urls = options.urls ?? (options.url !== undefined ? [options.url] : []);
  if (urls.length === 0) throw new Error('rpc chain: url or urls is required');
  const endpoints = new Endpoints({
    urls,
    maxSlotLag: options.maxSlotLag ?? DEFAULT_MAX_SLOT_LAG,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    slotProbeIntervalMs: options.slotProbeIntervalMs ?? DEFAULT_SLOT_PROBE_MS,
  });
  return {
    programId,
    maker: fastSigner(keypair),
    endpoints,
    statuses: new DataLoader((signatures) => statusesOf(endpoints, signatures), {
      cache: false,
      maxBatchSize: MAX_SIGNATURE_STATUSES,
      batchScheduleFn: (dispatch) => setImmediate(dispatch),
    }),
    pollMs: options.pollIntervalMs ?? 500,
    rebroadcastMs: options.rebroadcastIntervalMs ?? 2_000,
    wsUrls: [
      ...new Set([
        options.wsUrl ?? websocketUrlFor(endpoints.primary.url),
        ...urls.slice(1).map(websocketUrlFor),
      ]),
    ],
    feeds: new Set<AccountFeed>(),
    finalized: new Map<string, SignatureState>(),
  };
}

/** The priority fee maker transactions pay, from the options; none when the base fee is 0. */
function priorityFeeOf(options: RpcChainOptions): { priorityFee?: PriorityFeePolicy } {
  const priority = options.priorityFeeMicroLamports ?? 0;
  if (priority <= 0) return {};
  return {
    priorityFee: {
      baseMicroLamports: priority,
      maxMicroLamports: Math.max(priority, options.maxPriorityFeeMicroLamports ?? priority),
      rampSeconds: options.priorityFeeRampSeconds ?? DEFAULT_PRIORITY_RAMP_SECONDS,
      unitLimit: options.computeUnitLimit ?? DEFAULT_UNIT_LIMIT,
    },
  };
}

const latestBlockhash = ({ endpoints }: Rpc) =>
  endpoints.read(
    'getLatestBlockhash',
    async (c) => withSlot(await c.getLatestBlockhashAndContext('confirmed')),
    { commitment: 'confirmed' },
  );

const blockHeightAt = ({ endpoints }: Rpc, commitment: Commitment) =>
  endpoints.read('getBlockHeight', async (c) => noSlot(await c.getBlockHeight(commitment)), { commitment });

const readAccount = ({ endpoints }: Rpc, what: string, address: PublicKey, commitment: Commitment) =>
  endpoints.read(what, async (c) => withSlot(await c.getAccountInfoAndContext(address, commitment)), {
    commitment,
    absent: (info) => info === null,
  });

async function commitmentSlots({ endpoints }: Rpc) {
  const slotAt = (commitment: Commitment) =>
    endpoints.read('getSlot', async (c) => noSlot(await c.getSlot(commitment)), { commitment });
  const [confirmed, finalized] = await Promise.all([slotAt('confirmed'), slotAt('finalized')]);
  return { confirmed, finalized };
}

/** The transaction, or null when a current endpoint does not know it. */
const fetchTransaction = ({ endpoints }: Rpc, signature: string, commitment: Commitment) =>
  endpoints.read(
    'getTransaction',
    async (c) => noSlot(await c.getTransaction(signature, { commitment, maxSupportedTransactionVersion: 0 })),
    { commitment, absent: (tx) => tx === null },
  );

const wireOf = (r: VersionedTransactionResponse): Pick<WireTransaction, 'instructions' | 'accountKeys'> => {
  const m = r.transaction.message;
  return {
    accountKeys: m.staticAccountKeys.map((k) => k.toBase58()),
    instructions: m.compiledInstructions.map((ix) => ({
      programIdIndex: ix.programIdIndex,
      accounts: ix.accountKeyIndexes,
      data: ix.data,
    })),
  };
};

function toChainTransaction(
  programId: PublicKey,
  signature: string,
  r: VersionedTransactionResponse,
): ChainTransaction {
  const txError = (r.meta?.err ?? null) as TransactionErrorJson | null;
  const bytes = new VersionedTransaction(
    r.transaction.message,
    r.transaction.signatures.map((s) => decodeBase58(s)),
  ).serialize();
  return {
    signature,
    slot: r.slot,
    blockTime: r.blockTime ?? null,
    err: nameError(txError, programId, wireOf(r)).name,
    txError,
    fee: BigInt(r.meta?.fee ?? 0),
    accountKeys: r.transaction.message.staticAccountKeys.map((k) => k.toBase58()),
    logs: r.meta?.logMessages ?? [],
    transactionBase64: Buffer.from(bytes).toString('base64'),
    tokenBalances: tokenBalancesOf(r),
  };
}

async function getTransaction(rpc: Rpc, signature: string, commitment: Commitment) {
  const r = await fetchTransaction(rpc, signature, commitment);
  return r ? toChainTransaction(rpc.programId, signature, r) : null;
}

/**
 * Accounts in input order, ACCOUNTS_PER_CALL keys per getMultipleAccounts call; each call fails over on
 * its own, and one that finds an account absent is answered by a current endpoint.
 */
async function readAccounts({ endpoints }: Rpc, keys: readonly PublicKey[], commitment: Commitment) {
  const chunks: PublicKey[][] = [];
  for (let i = 0; i < keys.length; i += ACCOUNTS_PER_CALL) chunks.push(keys.slice(i, i + ACCOUNTS_PER_CALL));
  const answers = await mapLimited(chunks, CALLS_IN_FLIGHT, (chunk) =>
    endpoints.read(
      'getMultipleAccounts',
      async (c) => withSlot(await c.getMultipleAccountsInfoAndContext(chunk, commitment)),
      { commitment, absent: (infos) => infos.some((info) => info === null) },
    ),
  );
  return answers.flat();
}

/**
 * readAccounts plus the Clock sysvar in the same read: the Clock is the last key, so it rides in the
 * last chunk when that has room, and n accounts and the time cost ceil((n + 1) / 100) calls.
 */
async function readAccountsAndClock(rpc: Rpc, keys: readonly PublicKey[], commitment: Commitment) {
  const infos = await readAccounts(rpc, [...keys, SYSVAR_CLOCK_PUBKEY], commitment);
  const clock = decodeClock(infos.pop() ?? null);
  return { infos, clock };
}

const escrowOf = (programId: PublicKey) => (info: AccountInfo<Buffer> | null) =>
  escrowFromAccount(programId, info ? { owner: info.owner.toBase58(), data: info.data } : null);

async function readEscrowsAndClock(rpc: Rpc, addresses: readonly PublicKey[], commitment: Commitment) {
  const { infos, clock } = await readAccountsAndClock(rpc, addresses, commitment);
  return { escrows: infos.map(escrowOf(rpc.programId)), now: clock.unix, slot: clock.slot };
}

async function readPriceUpdates(rpc: Rpc, accounts: readonly PublicKey[], commitment: Commitment) {
  const { infos, clock } = await readAccountsAndClock(rpc, accounts, commitment);
  const updates = infos.map((info) =>
    priceUpdateFromAccount(info ? { owner: info.owner.toBase58(), data: info.data } : null),
  );
  return { updates, clockUnix: Number(clock.unix), slot: clock.slot };
}

async function readMint(rpc: Rpc, mint: PublicKey) {
  const info = await readAccount(rpc, 'getAccountInfo', mint, 'confirmed');
  return info ? classifyMint(info.owner.toBase58(), info.data) : null;
}

async function tokenBalance(rpc: Rpc, owner: PublicKey, mint: PublicKey) {
  const info = await readAccount(rpc, 'getAccountInfo', ata(owner, mint), 'confirmed');
  return info?.owner.equals(TOKEN_PROGRAM_ID) ? (readTokenAccount(info.data)?.amount ?? 0n) : 0n;
}

/** An empty wallet reads as 0 lamports, so 0 is an answer about absence. */
const solBalance = async ({ endpoints }: Rpc, owner: PublicKey) =>
  BigInt(
    await endpoints.read(
      'getBalance',
      async (c) => withSlot(await c.getBalanceAndContext(owner, 'confirmed')),
      { commitment: 'confirmed', absent: (lamports) => lamports === 0 },
    ),
  );

/** getSignatureStatuses' context is the node's processed bank. */
const statusAnswer = async (
  c: Connection,
  signatures: readonly string[],
): Promise<Answer<(SignatureStatus | null)[]>> => {
  const { context, value } = await c.getSignatureStatuses([...signatures], {
    searchTransactionHistory: true,
  });
  return { value: signatures.map((_, i) => value[i] ?? null), slot: context.slot };
};

/** The most signatures one getSignatureStatuses call may name. */
const MAX_SIGNATURE_STATUSES = 256;

/** "Unknown" is believed only from a current endpoint: a lagging one has not seen it land yet. */
const statusesOf = (endpoints: Endpoints, signatures: readonly string[]) =>
  endpoints.read('getSignatureStatuses', (c) => statusAnswer(c, signatures), {
    commitment: 'processed',
    absent: (statuses) => statuses.some((status) => status === null),
  });

async function signatureState(rpc: Rpc, signature: string): Promise<SignatureState> {
  const cached = rpc.finalized.get(signature);
  if (cached) return cached;
  const s = await rpc.statuses.load(signature);
  if (!s) return { status: 'unknown' };
  const status = s.confirmationStatus ?? (s.confirmations === null ? 'finalized' : 'confirmed');
  if (status !== 'finalized' && s.err === null) return { status, slot: s.slot, err: null };
  // Failed (to name its error) or final (for its fee): read the transaction itself.
  const tx = await fetchTransaction(rpc, signature, status === 'finalized' ? 'finalized' : 'confirmed');
  if (!tx) return { status: status === 'finalized' ? 'confirmed' : status, slot: s.slot, err: null };
  const err = nameError((s.err ?? null) as TransactionErrorJson | null, rpc.programId, wireOf(tx)).name;
  if (status !== 'finalized') return { status, slot: s.slot, err };
  const state: SignatureState = { status: 'finalized', slot: s.slot, err, fee: BigInt(tx.meta?.fee ?? 0) };
  rpc.finalized.set(signature, state);
  return state;
}

async function signaturesForAddress(
  { endpoints }: Rpc,
  address: PublicKey,
  commitment: Commitment,
  limit: number,
  before: string | undefined,
) {
  // A lagging endpoint's list lacks the newest signatures: every list is an answer about absence.
  const list = await endpoints.read(
    'getSignaturesForAddress',
    async (c) =>
      noSlot(await c.getSignaturesForAddress(address, before ? { limit, before } : { limit }, commitment)),
    { commitment, absent: () => true },
  );
  return list.map((s) => ({
    signature: s.signature,
    slot: s.slot,
    // Naming an HTLC error needs the transaction; getTransaction / signatureState give it.
    err: s.err === null ? null : describeTransactionError(s.err as TransactionErrorJson, () => false).name,
    blockTime: s.blockTime ?? null,
  }));
}

/**
 * Whether the bytes can never land: one current endpoint shows a finalized block height past their last
 * valid one and, asked after that, does not know the signature. Both facts come from the same node, so
 * its own view proves it, whatever the others say.
 */
const provenExpired = ({ endpoints }: Rpc, tx: SignedMakerTransaction) =>
  endpoints.read(
    'getBlockHeight+getSignatureStatuses',
    async (c) => {
      if ((await c.getBlockHeight('finalized')) <= tx.lastValidBlockHeight) return noSlot(false);
      const status = await statusAnswer(c, [tx.signature]);
      return { value: status.value[0] === null, slot: status.slot };
    },
    { commitment: 'processed', absent: (verdict) => verdict },
  );

/** Sends to every endpoint; an unknown blockhash is expired only once the chain's height is past it. */
const broadcast = (rpc: Rpc, wire: WireTransaction, lastValidBlockHeight?: number) =>
  broadcastToAll(rpc.endpoints, wire, rpc.programId, async () =>
    lastValidBlockHeight !== undefined
      ? (await blockHeightAt(rpc, 'confirmed')) > lastValidBlockHeight
      : // A lagging node also says a fresh blockhash is unknown: "invalid" is believed from a current one.
        !(await rpc.endpoints.read(
          'isBlockhashValid',
          async (c) => withSlot(await c.isBlockhashValid(wire.recentBlockhash, { commitment: 'processed' })),
          { commitment: 'processed', absent: (valid) => !valid },
        )),
  );

async function submitSigned(rpc: Rpc, transactionBase64: string) {
  const wire = decodeBase64Transaction(transactionBase64);
  const missing = missingSigners(wire);
  if (missing.length > 0) {
    throw new ChainError('missing_signature', `transaction lacks the signature of ${missing.join(', ')}`);
  }
  await broadcast(rpc, wire);
  return { signature: signatureOf(wire) };
}

async function send(rpc: Rpc, tx: Parameters<ChainPort['send']>[0]) {
  const wire = decodeBase64Transaction(tx.transactionBase64);
  if (missingSigners(wire).length > 0) throw new ChainError('missing_signature', 'transaction is not signed');
  await broadcast(rpc, wire, 'lastValidBlockHeight' in tx ? tx.lastValidBlockHeight : undefined);
}

/** Polls the signature, rebroadcasting the same bytes while it is unknown, until it lands, expires or time runs out. */
async function land(
  rpc: Rpc,
  tx: SignedMakerTransaction,
  commitment: Commitment,
  timeoutMs: number,
): Promise<LandResult> {
  const { pollMs, rebroadcastMs } = rpc;
  const wire = decodeBase64Transaction(tx.transactionBase64);
  const deadline = Date.now() + timeoutMs;
  let lastSend = 0;
  const rebroadcast = async () => {
    lastSend = Date.now();
    try {
      await broadcast(rpc, wire, tx.lastValidBlockHeight);
    } catch (e) {
      // Transient refusals are retried; expiry is decided by the proof below.
      if (!(e instanceof ChainError) || (e.code !== 'unavailable' && e.code !== 'blockhash_expired')) throw e;
    }
  };
  for (;;) {
    let state: SignatureState;
    let expired = false;
    try {
      state = await signatureState(rpc, tx.signature);
      // Only a finalized height past the blockhash proves the bytes can never land.
      if (!reaches(state, commitment) && state.status === 'unknown') expired = await provenExpired(rpc, tx);
    } catch (e) {
      // A read lost on a flaky cluster does not end the landing: the bytes go out again and their status
      // is asked again until the deadline; only then does the caller hear that the chain did not answer.
      if (!(e instanceof ChainError) || e.code !== 'unavailable' || Date.now() + pollMs > deadline) throw e;
      if (Date.now() - lastSend >= rebroadcastMs) await rebroadcast();
      await sleep(pollMs);
      continue;
    }
    if (reaches(state, commitment)) return state;
    if (expired) return { status: 'expired' };
    if (state.status === 'unknown' && Date.now() - lastSend >= rebroadcastMs) {
      await rebroadcast();
      continue;
    }
    if (Date.now() + pollMs > deadline) return state;
    await sleep(pollMs);
  }
}

/** The address lookup tables a v0 maker transaction names; a missing one makes it invalid. */
const lookupTables = ({ endpoints }: Rpc, addresses: readonly PublicKey[]) =>
  Promise.all(
    addresses.map(async (address) => {
      const value = await endpoints.read(
        'getAddressLookupTable',
        async (c) => withSlot(await c.getAddressLookupTable(address, { commitment: 'confirmed' })),
        { commitment: 'confirmed', absent: (table) => table === null },
      );
      if (!value) {
        throw new ChainError('invalid_transaction', `no address lookup table at ${address.toBase58()}`);
      }
      return value;
    }),
  );

async function health({ endpoints }: Rpc) {
  const reports = await Promise.all(
    endpoints.list.map(async (endpoint) => {
      try {
        // Both commitments' slots: what the lag of each endpoint's next answers is judged by.
        const [version, slot] = await Promise.all([
          endpoint.connection.getVersion(),
          endpoints.slotOf(endpoint, 'confirmed'),
          endpoints.slotOf(endpoint, 'finalized'),
        ]);
        return { ok: true, endpoint, detail: `solana-core ${version['solana-core']} at slot ${slot}` };
      } catch (e) {
        endpoints.failed(endpoint);
        return { ok: false, endpoint, detail: `unreachable: ${(e as Error).message}` };
      }
    }),
  );
  const lag = (slot: number | null) => (slot === null ? 0 : endpoints.lagOf(slot, 'confirmed'));
  const usable = reports.filter((r) => r.ok && lag(r.endpoint.reached('confirmed')) <= endpoints.maxSlotLag);
  const detail = reports
    .map((r) => {
      const behind = r.ok ? lag(r.endpoint.reached('confirmed')) : 0;
      const lagging = behind > endpoints.maxSlotLag ? `, ${behind} slots behind (lagging)` : '';
      return `${r.endpoint.label} ${r.detail}${lagging}`;
    })
    .join('; ');
  return { ok: usable.length > 0, detail };
}

function watchAccounts(
  rpc: Rpc,
  onChange: Parameters<ChainPort['watchAccounts']>[0],
  commitment: Commitment,
) {
  const { wsUrls, programId, feeds } = rpc;
  const feed = openProgramFeed({ wsUrls, programId: programId.toBase58(), commitment, onChange });
  feeds.add(feed);
  return {
    get live() {
      return feed.live;
    },
    get generation() {
      return feed.generation;
    },
    close: () => {
      feeds.delete(feed);
      feed.close();
    },
  };
}

function close({ endpoints, feeds }: Rpc) {
  endpoints.close();
  for (const feed of feeds) feed.close();
  feeds.clear();
}

export function createRpcChain(options: RpcChainOptions): ChainPort {
  const rpc = openRpc(options);
  const { programId, maker } = rpc;
  const lifetime = () => latestBlockhash(rpc);
  const escrow = escrowOf(programId);
  return {
    kind: 'rpc',
    programId,
    makerWallet: maker.publicKey,
    now: async () =>
      decodeClock(await readAccount(rpc, 'getAccountInfo(clock)', SYSVAR_CLOCK_PUBKEY, 'confirmed')).unix,
    blockHeight: () => blockHeightAt(rpc, 'confirmed'),
    commitmentSlots: () => commitmentSlots(rpc),
    latestBlockhash: lifetime,
    ...settlementBuilders({ programId, maker, ...priorityFeeOf(options), lifetime }),
    signMakerInstructions: (a) =>
      signMakerInstructions(
        { maker, lifetime, lookupTables: (addresses) => lookupTables(rpc, addresses) },
        a,
      ),
    submitSigned: (transactionBase64) => submitSigned(rpc, transactionBase64),
    send: (tx) => send(rpc, tx),
    signatureState: (signature) => signatureState(rpc, signature),
    confirm: (signature, commitment, timeoutMs) =>
      pollSignature(() => signatureState(rpc, signature), commitment, timeoutMs, rpc.pollMs),
    land: (tx, commitment, timeoutMs) => land(rpc, tx, commitment, timeoutMs),
    readEscrow: async (address, commitment) =>
      escrow(await readAccount(rpc, 'getAccountInfo', address, commitment)),
    signaturesForAddress: (address, commitment, limit = 100, before) =>
      signaturesForAddress(rpc, address, commitment, limit, before),
    getTransaction: (signature, commitment) => getTransaction(rpc, signature, commitment),
    readMint: (mint) => readMint(rpc, mint),
    tokenBalance: (owner, mint) => tokenBalance(rpc, owner, mint),
    solBalance: (owner) => solBalance(rpc, owner),
    health: () => health(rpc),
    close: async () => close(rpc),
    readEscrows: async (addresses, commitment) =>
      (await readAccounts(rpc, addresses, commitment)).map(escrow),
    readEscrowsAndClock: (addresses, commitment) => readEscrowsAndClock(rpc, addresses, commitment),
    readPriceUpdates: (accounts, commitment) => readPriceUpdates(rpc, accounts, commitment),
    // At the commitment the watcher reads at for what it acts on: finalized, or confirmed for the taker
    // locks the maker may trust at confirmed (runtime/exposure.ts).
    watchAccounts: (onChange, commitment = 'finalized') => watchAccounts(rpc, onChange, commitment),
  };
}
