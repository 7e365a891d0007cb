// The `rpc` chain port: any Solana JSON-RPC cluster through web3.js Connection. Maker transactions
// carry a priority fee and are rebroadcast (same signed bytes) until they land or their blockhash
// expires; taker locks are trusted only at the commitment the runtime asks for (finalized).

import {
  type AccountInfo,
  Connection,
  type Keypair,
  PublicKey,
  SendTransactionError,
  SYSVAR_CLOCK_PUBKEY,
  VersionedTransaction,
  type VersionedTransactionResponse,
  type Commitment as Web3Commitment,
} from '@solana/web3.js';
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
import { priceUpdateFromAccount } from '../pyth/account.ts';
import { settlementBuilders } from '../settlement.ts';
import { fastSigner, loadKeypairFile } from '../signer.ts';
import { ata, classifyMint, readTokenAccount, TOKEN_PROGRAM_ID } from '../token.ts';
import { signMakerInstructions } from '../v0.ts';
import { decodeBase64Transaction, missingSigners, signatureOf, type WireTransaction } from '../wire.ts';
import { openProgramFeed, websocketUrlFor } from './feed.ts';

export interface RpcChainOptions {
  url: string;
  /** The cluster's websocket (PubSub) endpoint; default derived from `url` as web3.js does (port + 1). */
  wsUrl?: string;
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

/** Only the origin of an RPC URL is shown anywhere: paths and queries often carry API keys. */
const redactUrl = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return 'rpc';
  }
};

/** getMultipleAccounts takes at most 100 keys; this many chunks are in flight at once. */
const ACCOUNTS_PER_CALL = 100;
const CALLS_IN_FLIGHT = 4;

/** slot and unix_timestamp of the Clock sysvar's data. */
function decodeClock(info: AccountInfo<Buffer> | null, origin: string): { slot: number; unix: bigint } {
  if (!info || info.data.length < 40) throw new ChainError('unavailable', `no Clock sysvar at ${origin}`);
  return { slot: Number(info.data.readBigUInt64LE(0)), unix: info.data.readBigInt64LE(32) };
}

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

const PREFLIGHT_CUSTOM = /Error processing Instruction (\d+): custom program error: 0x([0-9a-fA-F]+)/;

export function createRpcChain(options: RpcChainOptions): ChainPort {
  const programId =
    typeof options.programId === 'string' ? new PublicKey(options.programId) : options.programId;
  const keypair =
    options.makerKeypair ?? (options.makerKeypairPath ? loadKeypairFile(options.makerKeypairPath) : null);
  if (!keypair) throw new Error('rpc chain: makerKeypair or makerKeypairPath is required');
  const maker = fastSigner(keypair);
  const connection = new Connection(options.url, { commitment: 'confirmed', disableRetryOnRateLimit: false });
  const pollMs = options.pollIntervalMs ?? 500;
  const rebroadcastMs = options.rebroadcastIntervalMs ?? 2_000;
  const origin = redactUrl(options.url);
  const wsUrl = options.wsUrl ?? websocketUrlFor(options.url);
  const feeds = new Set<AccountFeed>();
  const priority = options.priorityFeeMicroLamports ?? 0;

  const rpc = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (e) {
      if (e instanceof ChainError) throw e;
      throw new ChainError('unavailable', `${what} failed at ${origin}: ${(e as Error).message}`, {
        cause: e,
      });
    }
  };

  const latestBlockhash = () => rpc('getLatestBlockhash', () => connection.getLatestBlockhash('confirmed'));

  const builders = settlementBuilders({
    programId,
    maker,
    ...(priority > 0
      ? {
          priorityFee: {
            baseMicroLamports: priority,
            maxMicroLamports: Math.max(priority, options.maxPriorityFeeMicroLamports ?? priority),
            rampSeconds: options.priorityFeeRampSeconds ?? DEFAULT_PRIORITY_RAMP_SECONDS,
            unitLimit: options.computeUnitLimit ?? DEFAULT_UNIT_LIMIT,
          },
        }
      : {}),
    lifetime: latestBlockhash,
  });

  // Finalized states never change; failed-transaction names need a getTransaction, so keep them.
  const finalized = new Map<string, SignatureState>();

  async function fetchTransaction(
    signature: string,
    commitment: Commitment,
  ): Promise<VersionedTransactionResponse | null> {
    return rpc('getTransaction', () =>
      connection.getTransaction(signature, { commitment, maxSupportedTransactionVersion: 0 }),
    );
  }

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

  function toChainTransaction(signature: string, r: VersionedTransactionResponse): ChainTransaction {
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

  /** Accounts in input order, ACCOUNTS_PER_CALL keys per getMultipleAccounts call. */
  async function readAccounts(keys: readonly PublicKey[], commitment: Commitment) {
    const chunks: PublicKey[][] = [];
    for (let i = 0; i < keys.length; i += ACCOUNTS_PER_CALL)
      chunks.push(keys.slice(i, i + ACCOUNTS_PER_CALL));
    const answers = await mapLimited(chunks, CALLS_IN_FLIGHT, (chunk) =>
      rpc('getMultipleAccounts', () =>
        connection.getMultipleAccountsInfo(chunk, commitment as Web3Commitment),
      ),
    );
    return answers.flat();
  }

  /**
   * readAccounts plus the Clock sysvar in the same read: the Clock is the last key, so it rides in the
   * last chunk when that has room, and n accounts and the time cost ceil((n + 1) / 100) calls.
   */
  async function readAccountsAndClock(keys: readonly PublicKey[], commitment: Commitment) {
    const infos = await readAccounts([...keys, SYSVAR_CLOCK_PUBKEY], commitment);
    const clock = decodeClock(infos.pop() ?? null, origin);
    return { infos, clock };
  }

  const escrowOf = (info: AccountInfo<Buffer> | null) =>
    escrowFromAccount(programId, info ? { owner: info.owner.toBase58(), data: info.data } : null);

  async function signatureState(signature: string): Promise<SignatureState> {
    const cached = finalized.get(signature);
    if (cached) return cached;
    const { value } = await rpc('getSignatureStatuses', () =>
      connection.getSignatureStatuses([signature], { searchTransactionHistory: true }),
    );
    const s = value[0];
    if (!s) return { status: 'unknown' };
    const status = s.confirmationStatus ?? (s.confirmations === null ? 'finalized' : 'confirmed');
    if (status !== 'finalized' && s.err === null) return { status, slot: s.slot, err: null };
    // Failed (to name its error) or final (for its fee): read the transaction itself.
    const tx = await fetchTransaction(signature, status === 'finalized' ? 'finalized' : 'confirmed');
    if (!tx) return { status: status === 'finalized' ? 'confirmed' : status, slot: s.slot, err: null };
    const err = nameError((s.err ?? null) as TransactionErrorJson | null, programId, wireOf(tx)).name;
    if (status !== 'finalized') return { status, slot: s.slot, err };
    const state: SignatureState = { status: 'finalized', slot: s.slot, err, fee: BigInt(tx.meta?.fee ?? 0) };
    finalized.set(signature, state);
    return state;
  }

  /** Broadcast with preflight; answers true when the chain already has it. */
  async function broadcast(wire: WireTransaction, lastValidBlockHeight?: number): Promise<void> {
    const signature = signatureOf(wire);
    try {
      await connection.sendRawTransaction(wire.bytes, {
        skipPreflight: false,
        preflightCommitment: 'confirmed',
        maxRetries: 0,
      });
    } catch (e) {
      if (!(e instanceof SendTransactionError)) {
        throw new ChainError('unavailable', `sendTransaction failed at ${origin}: ${(e as Error).message}`, {
          signature,
          cause: e,
        });
      }
      const { message = e.message, logs = [] } = e.transactionError;
      if (/already been processed/i.test(message)) return;
      if (/signature verification failure/i.test(message)) {
        throw new ChainError('invalid_signature', 'transaction signature verification failure', {
          signature,
        });
      }
      if (/Blockhash not found/i.test(message)) {
        // A lagging node also says this for a fresh blockhash: expired only once the chain is past it.
        const expired =
          lastValidBlockHeight !== undefined
            ? (await rpc('getBlockHeight', () => connection.getBlockHeight('confirmed'))) >
              lastValidBlockHeight
            : !(
                await rpc('isBlockhashValid', () =>
                  connection.isBlockhashValid(wire.recentBlockhash, { commitment: 'processed' }),
                )
              ).value;
        throw new ChainError(
          expired ? 'blockhash_expired' : 'unavailable',
          `blockhash not found (${message})`,
          {
            signature,
          },
        );
      }
      if (/no record of a prior credit|insufficient funds for fee/i.test(message)) {
        throw new ChainError('insufficient_funds', message, { signature, logs });
      }
      const custom = PREFLIGHT_CUSTOM.exec(message);
      const txError: TransactionErrorJson | undefined = custom
        ? { InstructionError: [Number(custom[1]), { Custom: Number.parseInt(custom[2] ?? '0', 16) }] }
        : undefined;
      const named: { name: string | null; htlcError?: string } = txError
        ? nameError(txError, programId, wire)
        : { name: message };
      throw new ChainError('rejected', `transaction refused: ${named.name}`, {
        signature,
        logs,
        ...(txError ? { txError } : {}),
        ...(named.htlcError ? { htlcError: named.htlcError } : {}),
      });
    }
  }

  const chain: ChainPort = {
    kind: 'rpc',
    programId,
    makerWallet: maker.publicKey,

    now: async () => {
      const info = await rpc('getAccountInfo(clock)', () =>
        connection.getAccountInfo(SYSVAR_CLOCK_PUBKEY, 'confirmed'),
      );
      return decodeClock(info, origin).unix;
    },
    blockHeight: () => rpc('getBlockHeight', () => connection.getBlockHeight('confirmed')),
    latestBlockhash,

    ...builders,
    signMakerInstructions: (a) =>
      signMakerInstructions(
        {
          maker,
          lifetime: latestBlockhash,
          lookupTables: (addresses) =>
            Promise.all(
              addresses.map(async (address) => {
                const { value } = await rpc('getAddressLookupTable', () =>
                  connection.getAddressLookupTable(address, { commitment: 'confirmed' }),
                );
                if (!value) {
                  throw new ChainError(
                    'invalid_transaction',
                    `no address lookup table at ${address.toBase58()}`,
                  );
                }
                return value;
              }),
            ),
        },
        a,
      ),

    submitSigned: async (transactionBase64) => {
      const wire = decodeBase64Transaction(transactionBase64);
      const missing = missingSigners(wire);
      if (missing.length > 0) {
        throw new ChainError('missing_signature', `transaction lacks the signature of ${missing.join(', ')}`);
      }
      await broadcast(wire);
      return { signature: signatureOf(wire) };
    },
    send: async (tx) => {
      const wire = decodeBase64Transaction(tx.transactionBase64);
      if (missingSigners(wire).length > 0)
        throw new ChainError('missing_signature', 'transaction is not signed');
      await broadcast(wire, 'lastValidBlockHeight' in tx ? tx.lastValidBlockHeight : undefined);
    },
    signatureState,
    confirm: (signature, commitment, timeoutMs) =>
      pollSignature(() => signatureState(signature), commitment, timeoutMs, pollMs),
    land: async (tx: SignedMakerTransaction, commitment, timeoutMs): Promise<LandResult> => {
      const wire = decodeBase64Transaction(tx.transactionBase64);
      const deadline = Date.now() + timeoutMs;
      let lastSend = 0;
      for (;;) {
        const state = await signatureState(tx.signature);
        if (reaches(state, commitment)) return state;
        if (state.status === 'unknown') {
          // Only a finalized height past the blockhash proves the bytes can never land.
          const finalHeight = await rpc('getBlockHeight', () => connection.getBlockHeight('finalized'));
          if (finalHeight > tx.lastValidBlockHeight) {
            const again = await signatureState(tx.signature);
            return again.status === 'unknown' ? { status: 'expired' } : again;
          }
          if (Date.now() - lastSend >= rebroadcastMs) {
            lastSend = Date.now();
            try {
              await broadcast(wire, tx.lastValidBlockHeight);
            } catch (e) {
              // Transient refusals are retried; expiry is decided by the height check above.
              if (!(e instanceof ChainError) || (e.code !== 'unavailable' && e.code !== 'blockhash_expired'))
                throw e;
            }
            continue;
          }
        }
        if (Date.now() + pollMs > deadline) return state;
        await sleep(pollMs);
      }
    },

    readEscrow: async (address, commitment) => {
      const info = await rpc('getAccountInfo', () =>
        connection.getAccountInfo(address, commitment as Web3Commitment),
      );
      return escrowFromAccount(programId, info ? { owner: info.owner.toBase58(), data: info.data } : null);
    },
    signaturesForAddress: async (address, commitment, limit = 100, before) => {
      const list = await rpc('getSignaturesForAddress', () =>
        connection.getSignaturesForAddress(address, before ? { limit, before } : { limit }, commitment),
      );
      return list.map((s) => ({
        signature: s.signature,
        slot: s.slot,
        // Naming an HTLC error needs the transaction; getTransaction / signatureState give it.
        err:
          s.err === null ? null : describeTransactionError(s.err as TransactionErrorJson, () => false).name,
        blockTime: s.blockTime ?? null,
      }));
    },
    getTransaction: async (signature, commitment) => {
      const r = await fetchTransaction(signature, commitment);
      return r ? toChainTransaction(signature, r) : null;
    },
    readMint: async (mint) => {
      const info = await rpc('getAccountInfo', () => connection.getAccountInfo(mint, 'confirmed'));
      return info ? classifyMint(info.owner.toBase58(), info.data) : null;
    },
    tokenBalance: async (owner, mint) => {
      const info = await rpc('getAccountInfo', () =>
        connection.getAccountInfo(ata(owner, mint), 'confirmed'),
      );
      return info?.owner.equals(TOKEN_PROGRAM_ID) ? (readTokenAccount(info.data)?.amount ?? 0n) : 0n;
    },
    solBalance: async (owner) =>
      BigInt(await rpc('getBalance', () => connection.getBalance(owner, 'confirmed'))),
    health: async () => {
      try {
        const [version, slot] = await Promise.all([connection.getVersion(), connection.getSlot('confirmed')]);
        return { ok: true, detail: `${origin} solana-core ${version['solana-core']} at slot ${slot}` };
      } catch (e) {
        return { ok: false, detail: `${origin} unreachable: ${(e as Error).message}` };
      }
    },
    close: async () => {
      for (const feed of feeds) feed.close();
      feeds.clear();
    },

    readEscrows: async (addresses, commitment) => (await readAccounts(addresses, commitment)).map(escrowOf),
    readEscrowsAndClock: async (addresses, commitment) => {
      const { infos, clock } = await readAccountsAndClock(addresses, commitment);
      return { escrows: infos.map(escrowOf), now: clock.unix, slot: clock.slot };
    },
    readPriceUpdates: async (accounts, commitment) => {
      const { infos, clock } = await readAccountsAndClock(accounts, commitment);
      const updates = infos.map((info) =>
        priceUpdateFromAccount(info ? { owner: info.owner.toBase58(), data: info.data } : null),
      );
      return { updates, clockUnix: Number(clock.unix), slot: clock.slot };
    },
    watchAccounts: (onChange) => {
      // Finalized: a pushed change is one the watcher may act on, as with every escrow read it does.
      const feed = openProgramFeed({
        wsUrl,
        programId: programId.toBase58(),
        commitment: 'finalized',
        onChange,
      });
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
    },
  };
  return chain;
}
