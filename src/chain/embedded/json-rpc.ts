// The Solana JSON-RPC methods the embedded ledger answers, shaped exactly as @solana/web3.js 1.x parses
// them (its superstruct result schemas), plus dev_* methods: the loopback chain server (src/dev-chain/)
// serves them all, the service's /v1/dev/rpc a taker's few (src/http/routes/dev-rpc.ts). Every read
// honours its commitment as a validator does (finalized when none is given): on a chain that keeps real
// time, confirmed and finalized lag the tip (ledger.ts); on the instant chain they are all the tip.

import { PublicKey } from '@solana/web3.js';
import { decodeBase58, encodeBase58 } from '../../vocabulary/base58.ts';
import { ChainError, type TransactionErrorJson } from '../errors.ts';
import type { PythPublisher } from '../pyth/publisher.ts';
import { readTokenAccount, TOKEN_PROGRAM_ID } from '../token.ts';
import { parseWireTransaction, signatureOf } from '../wire.ts';
import type { CommitmentLevel, EmbeddedLedger } from './ledger.ts';
import { COMMITMENTS, LAMPORTS_PER_SIGNATURE } from './ledger.ts';
import type { StoredAccount, StoredTokenBalance, StoredTransaction } from './store.ts';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

// JSON-RPC error codes as Solana validators use them.
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;
const PREFLIGHT_FAILURE = -32002;
const SIGNATURE_VERIFICATION_FAILURE = -32003;

type Params = unknown[];
type Config = Record<string, unknown> | undefined;

const CORE_VERSION = '2.2.0';
const U64_MAX_AS_NUMBER = 18446744073709552000;

function param<T>(params: Params, i: number, check: (v: unknown) => v is T, what: string): T {
  const v = params[i];
  if (!check(v)) throw new RpcError(INVALID_PARAMS, `Invalid params: ${what}`);
  return v;
}
const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const configOf = (params: Params, i: number): Config => {
  const c = params[i];
  return c && typeof c === 'object' && !Array.isArray(c) ? (c as Record<string, unknown>) : undefined;
};

/** The commitment a call's config asks for; a validator's default is finalized. */
function commitmentOf(config: Config): CommitmentLevel {
  const asked = config?.commitment;
  if (asked === undefined) return 'finalized';
  if (typeof asked === 'string' && (COMMITMENTS as readonly string[]).includes(asked)) {
    return asked as CommitmentLevel;
  }
  throw new RpcError(INVALID_PARAMS, `Invalid params: commitment ${String(asked)}`);
}

function pubkey(s: string): PublicKey {
  try {
    return new PublicKey(s);
  } catch {
    throw new RpcError(INVALID_PARAMS, `Invalid param: Invalid pubkey ${s}`);
  }
}

/** bigint → JSON number; every lamport figure on this chain stays below 2^53. */
const n = (v: bigint) => Number(v);

export function accountJson(a: StoredAccount | null, encoding: unknown) {
  if (!a) return null;
  const data =
    encoding === 'base58'
      ? [encodeBase58(a.data), 'base58']
      : [Buffer.from(a.data).toString('base64'), 'base64'];
  return {
    data,
    executable: a.executable,
    lamports: n(a.lamports),
    owner: a.owner,
    rentEpoch: U64_MAX_AS_NUMBER,
    space: a.data.length,
  };
}

/** A raw token amount as decimal text, trailing zeros trimmed (uiAmountString). */
function uiAmountString(amount: bigint, decimals: number): string {
  const s = amount.toString().padStart(decimals + 1, '0');
  return decimals > 0 ? `${s.slice(0, -decimals)}.${s.slice(-decimals)}`.replace(/\.?0+$/, '') : s;
}

/** Static keys, then the lookup tables' writable and readonly keys: what meta's indexes count. */
const allKeysOf = (r: StoredTransaction) => [
  ...r.accountKeys,
  ...(r.loadedAddresses?.writable ?? []),
  ...(r.loadedAddresses?.readonly ?? []),
];

/** meta.preTokenBalances / postTokenBalances: the side's entries, accountIndex into all the keys. */
function tokenBalancesJson(r: StoredTransaction, side: 'pre' | 'post') {
  const keys = allKeysOf(r);
  return (r.tokenBalances ?? []).flatMap((b: StoredTokenBalance) => {
    const s = b[side];
    if (!s) return [];
    const ui = uiAmountString(s.amount, s.decimals);
    return [
      {
        accountIndex: keys.indexOf(b.account),
        mint: s.mint,
        owner: s.owner,
        programId: TOKEN_PROGRAM_ID.toBase58(),
        // As validators answer: a zero balance has no uiAmount.
        uiTokenAmount: {
          amount: s.amount.toString(),
          decimals: s.decimals,
          uiAmount: s.amount === 0n ? null : Number(ui),
          uiAmountString: ui,
        },
      },
    ];
  });
}

function decodeWire(encoded: string, encoding: unknown): Uint8Array {
  try {
    return encoding === 'base64'
      ? new Uint8Array(Buffer.from(encoded, 'base64'))
      : new Uint8Array(decodeBase58(encoded));
  } catch {
    throw new RpcError(INVALID_PARAMS, 'invalid transaction: failed to decode');
  }
}

/** A signature's status as the tip sees it: confirmations counted until it is finalized (then null). */
function statusJson(ledger: EmbeddedLedger, r: StoredTransaction) {
  const level = ledger.commitmentOf(r.slot);
  return {
    slot: r.slot,
    confirmations: level === 'finalized' ? null : ledger.slot() - r.slot,
    err: r.err,
    status: r.err === null ? { Ok: null } : { Err: r.err },
    confirmationStatus: level,
  };
}

function transactionJson(r: StoredTransaction, encoding: unknown) {
  const tx = parseWireTransaction(r.bytes);
  const transaction =
    encoding === 'base64'
      ? [Buffer.from(r.bytes).toString('base64'), 'base64']
      : {
          signatures: tx.signatures.map((s) => encodeBase58(s)),
          message: {
            accountKeys: tx.accountKeys,
            header: {
              numRequiredSignatures: tx.header.numRequiredSignatures,
              numReadonlySignedAccounts: tx.header.numReadonlySigned,
              numReadonlyUnsignedAccounts: tx.header.numReadonlyUnsigned,
            },
            instructions: tx.instructions.map((ix) => ({
              programIdIndex: ix.programIdIndex,
              accounts: ix.accounts,
              data: encodeBase58(ix.data),
              stackHeight: null,
            })),
            recentBlockhash: tx.recentBlockhash,
            ...(tx.version === 0 ? { addressTableLookups: tx.addressTableLookups } : {}),
          },
        };
  return {
    slot: r.slot,
    blockTime: r.blockTime,
    version: tx.version,
    transaction,
    meta: {
      err: r.err,
      status: r.err === null ? { Ok: null } : { Err: r.err },
      fee: n(r.fee),
      preBalances: r.preBalances.map(n),
      postBalances: r.postBalances.map(n),
      innerInstructions: [],
      logMessages: r.logs,
      // null for a record from before the chain kept token balances, as an old node answers.
      preTokenBalances: r.tokenBalances && tokenBalancesJson(r, 'pre'),
      postTokenBalances: r.tokenBalances && tokenBalancesJson(r, 'post'),
      rewards: [],
      loadedAddresses: r.loadedAddresses ?? { writable: [], readonly: [] },
      computeUnitsConsumed: n(r.computeUnits),
    },
  };
}

/** The text a validator's preflight puts in its error message, close enough for logs. */
function preflightMessage(err: TransactionErrorJson): string {
  if (err === 'AlreadyProcessed')
    return 'Transaction simulation failed: This transaction has already been processed';
  if (err === 'BlockhashNotFound') return 'Transaction simulation failed: Blockhash not found';
  if (err === 'AccountNotFound') {
    return 'Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.';
  }
  if (typeof err === 'object' && Array.isArray(err.InstructionError)) {
    const [index, inner] = err.InstructionError as [number, unknown];
    const custom = (inner as { Custom?: number })?.Custom;
    const text =
      typeof custom === 'number' ? `custom program error: 0x${custom.toString(16)}` : JSON.stringify(inner);
    return `Transaction simulation failed: Error processing Instruction ${index}: ${text}`;
  }
  return `Transaction simulation failed: ${JSON.stringify(err)}`;
}

/** Fee of a message: base fee per signature plus the compute-budget priority fee. */
function feeForMessage(messageBytes: Uint8Array): bigint {
  const versioned = (messageBytes[0] ?? 0) & 0x80;
  const numSigs = messageBytes[versioned ? 1 : 0] ?? 0;
  const wire = new Uint8Array(1 + 64 * numSigs + messageBytes.length);
  wire[0] = numSigs;
  wire.set(messageBytes, 1 + 64 * numSigs);
  const tx = parseWireTransaction(wire);
  const computeBudget = 'ComputeBudget111111111111111111111111111111';
  let unitLimit: bigint | null = null;
  let microLamports = 0n;
  let others = 0n;
  for (const ix of tx.instructions) {
    if (tx.accountKeys[ix.programIdIndex] !== computeBudget) {
      others += 1n;
      continue;
    }
    const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (ix.data[0] === 2 && ix.data.length >= 5) unitLimit = BigInt(view.getUint32(1, true));
    if (ix.data[0] === 3 && ix.data.length >= 9) microLamports = view.getBigUint64(1, true);
  }
  const limit = unitLimit ?? (others * 200_000n > 1_400_000n ? 1_400_000n : others * 200_000n);
  const priority = (microLamports * limit + 999_999n) / 1_000_000n;
  return LAMPORTS_PER_SIGNATURE * BigInt(numSigs) + priority;
}

type Method = (params: Params) => unknown;

const withContext = (ledger: EmbeddedLedger, value: unknown, commitment: CommitmentLevel = 'processed') => ({
  context: { slot: ledger.slotAt(commitment), apiVersion: CORE_VERSION },
  value,
});

/** The account as the call's commitment sees it, with that commitment's context. */
const accountAt = (ledger: EmbeddedLedger, p: Params, at: number) => {
  const commitment = commitmentOf(configOf(p, at));
  return { commitment, read: (key: string) => ledger.getAccount(pubkey(key), commitment) };
};

function getFeeForMessage(ledger: EmbeddedLedger, p: Params) {
  const bytes = new Uint8Array(Buffer.from(param(p, 0, isString, 'message'), 'base64'));
  try {
    const fee = feeForMessage(bytes);
    // Like a validator: null when the message's blockhash is no longer valid.
    const offset = (bytes[0] ?? 0) & 0x80 ? 4 : 3;
    const keyCount = bytes[offset] ?? 0;
    const hash = encodeBase58(bytes.subarray(offset + 1 + 32 * keyCount, offset + 1 + 32 * keyCount + 32));
    return withContext(ledger, ledger.blockhashSlot(hash) === null ? null : n(fee));
  } catch {
    throw new RpcError(INVALID_PARAMS, 'invalid message');
  }
}

/** The cluster's identity, clock and fees. */
function clusterMethods(ledger: EmbeddedLedger): Record<string, Method> {
  return {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': `${CORE_VERSION}-embedded`, 'feature-set': 0 }),
    getGenesisHash: () => ledger.genesisHash,
    getIdentity: () => ({ identity: ledger.faucet.publicKey.toBase58() }),
    getSlot: (p) => ledger.slotAt(commitmentOf(configOf(p, 0))),
    getBlockHeight: (p) => ledger.slotAt(commitmentOf(configOf(p, 0))),
    getTransactionCount: () => ledger.transactionCount(),
    getEpochInfo: (p) => {
      const slot = ledger.slotAt(commitmentOf(configOf(p, 0)));
      return {
        absoluteSlot: slot,
        blockHeight: slot,
        epoch: Math.floor(slot / 432_000),
        slotIndex: slot % 432_000,
        slotsInEpoch: 432_000,
        transactionCount: ledger.transactionCount(),
      };
    },
    getLatestBlockhash: (p) => {
      const commitment = commitmentOf(configOf(p, 0));
      const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash(commitment);
      return withContext(ledger, { blockhash, lastValidBlockHeight }, commitment);
    },
    isBlockhashValid: (p) => {
      const commitment = commitmentOf(configOf(p, 1));
      const hash = param(p, 0, isString, 'blockhash');
      return withContext(ledger, ledger.blockhashSlot(hash, commitment) !== null, commitment);
    },
    getMinimumBalanceForRentExemption: (p) =>
      n(ledger.minimumBalanceForRentExemption(param(p, 0, isNumber, 'data length'))),
    getFeeForMessage: (p) => getFeeForMessage(ledger, p),
  };
}

function getTokenAccountBalance(ledger: EmbeddedLedger, p: Params) {
  const { commitment, read } = accountAt(ledger, p, 1);
  const acc = read(param(p, 0, isString, 'pubkey'));
  const token = acc && acc.owner === TOKEN_PROGRAM_ID.toBase58() ? readTokenAccount(acc.data) : null;
  if (!token) throw new RpcError(INVALID_PARAMS, 'Invalid param: not a Token account');
  const decimals = ledger.decimalsOf(token.mint) ?? 0;
  const ui = uiAmountString(token.amount, decimals);
  return withContext(
    ledger,
    { amount: token.amount.toString(), decimals, uiAmount: Number(ui), uiAmountString: ui },
    commitment,
  );
}

/** Accounts and balances, at the call's commitment. */
function accountMethods(ledger: EmbeddedLedger): Record<string, Method> {
  return {
    getBalance: (p) => {
      const { commitment, read } = accountAt(ledger, p, 1);
      return withContext(ledger, n(read(param(p, 0, isString, 'pubkey'))?.lamports ?? 0n), commitment);
    },
    getAccountInfo: (p) => {
      const { commitment, read } = accountAt(ledger, p, 1);
      const account = accountJson(read(param(p, 0, isString, 'pubkey')), configOf(p, 1)?.encoding);
      return withContext(ledger, account, commitment);
    },
    getMultipleAccounts: (p) => {
      const keys = param(p, 0, isStringArray, 'pubkeys');
      if (keys.length > 100) throw new RpcError(INVALID_PARAMS, 'Too many inputs provided; max 100');
      const { commitment, read } = accountAt(ledger, p, 1);
      const encoding = configOf(p, 1)?.encoding;
      return withContext(
        ledger,
        keys.map((k) => accountJson(read(k), encoding)),
        commitment,
      );
    },
    getTokenAccountBalance: (p) => getTokenAccountBalance(ledger, p),
  };
}

function getSignaturesForAddress(ledger: EmbeddedLedger, p: Params) {
  const address = pubkey(param(p, 0, isString, 'address')).toBase58();
  const config = configOf(p, 1);
  const limit = Math.min(isNumber(config?.limit) ? config.limit : 1000, 1000);
  const before = isString(config?.before) ? config.before : undefined;
  const until = isString(config?.until) ? config.until : undefined;
  const commitment = commitmentOf(config);
  const out = [];
  for (const r of ledger.transactionsForAddress(address, limit, before, commitment)) {
    if (r.signature === until) break;
    out.push({
      signature: r.signature,
      slot: r.slot,
      err: r.err,
      memo: null,
      blockTime: r.blockTime,
      confirmationStatus: ledger.commitmentOf(r.slot),
    });
  }
  return out;
}

function sendTransaction(ledger: EmbeddedLedger, p: Params) {
  const config = configOf(p, 1);
  const bytes = decodeWire(param(p, 0, isString, 'transaction'), config?.encoding ?? 'base58');
  try {
    if (config?.skipPreflight !== true) {
      const sim = ledger.simulate(bytes);
      if (sim.err !== null) {
        throw new RpcError(PREFLIGHT_FAILURE, preflightMessage(sim.err), {
          err: sim.err,
          logs: sim.logs,
          accounts: null,
          unitsConsumed: n(sim.computeUnits),
          returnData: null,
        });
      }
    }
    return ledger.execute(bytes).record.signature;
  } catch (e) {
    if (e instanceof RpcError) throw e;
    if (e instanceof ChainError) {
      if (e.code === 'missing_signature' || e.code === 'invalid_signature') {
        throw new RpcError(SIGNATURE_VERIFICATION_FAILURE, 'Transaction signature verification failure');
      }
      if (e.code === 'invalid_transaction')
        throw new RpcError(INVALID_PARAMS, `invalid transaction: ${e.message}`);
      // Without preflight a cluster accepts the bytes and silently drops what cannot land.
      if (config?.skipPreflight === true && e.code === 'blockhash_expired') {
        return signatureOf(parseWireTransaction(bytes));
      }
      const err = e.txError ?? (e.code === 'blockhash_expired' ? 'BlockhashNotFound' : e.code);
      throw new RpcError(PREFLIGHT_FAILURE, preflightMessage(err), {
        err,
        logs: e.logs ?? [],
        accounts: null,
      });
    }
    throw e;
  }
}

function simulateTransaction(ledger: EmbeddedLedger, p: Params) {
  const config = configOf(p, 1);
  const bytes = decodeWire(param(p, 0, isString, 'transaction'), config?.encoding ?? 'base58');
  if (config?.sigVerify === true && config?.replaceRecentBlockhash === true)
    throw new RpcError(INVALID_PARAMS, 'sigVerify may not be used with replaceRecentBlockhash');
  const wanted = (config?.accounts as { addresses?: unknown; encoding?: unknown } | undefined) ?? null;
  if (wanted !== null && !isStringArray(wanted.addresses))
    throw new RpcError(INVALID_PARAMS, 'accounts.addresses must be an array of addresses');
  const addresses = wanted ? (wanted.addresses as string[]).map((a) => pubkey(a).toBase58()) : [];
  const sim = ledger.simulate(bytes, {
    sigVerify: config?.sigVerify === true,
    replaceRecentBlockhash: config?.replaceRecentBlockhash === true,
    accounts: addresses,
  });
  return withContext(ledger, {
    err: sim.err,
    logs: sim.logs,
    accounts: wanted ? sim.accounts.map((a) => accountJson(a, wanted.encoding ?? 'base64')) : null,
    unitsConsumed: n(sim.computeUnits),
    returnData: null,
  });
}

/** Transactions: their statuses and history, sending, simulating, and the faucet. */
function transactionMethods(ledger: EmbeddedLedger): Record<string, Method> {
  return {
    getSignatureStatuses: (p) => {
      const sigs = param(p, 0, isStringArray, 'signatures');
      if (sigs.length > 256) throw new RpcError(INVALID_PARAMS, 'Too many inputs provided; max 256');
      return withContext(
        ledger,
        sigs.map((s) => {
          const r = ledger.transaction(s);
          return r ? statusJson(ledger, r) : null;
        }),
      );
    },
    getTransaction: (p) => {
      const config = configOf(p, 1);
      const commitment = commitmentOf(config);
      if (commitment === 'processed') {
        throw new RpcError(INVALID_PARAMS, 'Method does not support commitment below `confirmed`');
      }
      const r = ledger.transaction(param(p, 0, isString, 'signature'), commitment);
      return r ? transactionJson(r, config?.encoding ?? (isString(p[1]) ? p[1] : 'json')) : null;
    },
    getSignaturesForAddress: (p) => getSignaturesForAddress(ledger, p),
    sendTransaction: (p) => sendTransaction(ledger, p),
    simulateTransaction: (p) => simulateTransaction(ledger, p),
    requestAirdrop: (p) =>
      ledger.requestAirdrop(
        pubkey(param(p, 0, isString, 'pubkey')),
        BigInt(param(p, 1, isNumber, 'lamports')),
      ),
  };
}

/** [action, symbol?, bps?]: freeze | stale | resume | jump (bps) a feed, publish all now, or status. */
function devPyth(pyth: PythPublisher | null, p: Params) {
  if (!pyth) throw new RpcError(INVALID_PARAMS, 'this chain publishes no Pyth feeds');
  const action = param(p, 0, isString, 'action');
  const symbol = () => param(p, 1, isString, 'symbol');
  try {
    if (action === 'freeze') pyth.freeze(symbol());
    else if (action === 'stale') pyth.stale(symbol());
    else if (action === 'resume') pyth.resume(symbol());
    else if (action === 'jump') pyth.jump(symbol(), param(p, 2, isNumber, 'bps'));
    else if (action === 'publish') pyth.publishNow();
    else if (action !== 'status') throw new RpcError(INVALID_PARAMS, `Invalid params: pyth action ${action}`);
  } catch (e) {
    if (e instanceof RpcError) throw e;
    throw new RpcError(INVALID_PARAMS, `Invalid params: ${(e as Error).message}`);
  }
  return pyth.symbols.map((feed) => {
    const latest = pyth.latest(feed);
    return {
      symbol: feed,
      mode: pyth.mode(feed),
      price: latest?.price.toString() ?? null,
      exponent: latest?.exponent ?? null,
      publishTime: latest === null ? null : n(latest.publishTime),
    };
  });
}

/** dev methods: only this loopback chain has them. */
function devMethods(ledger: EmbeddedLedger, pyth: PythPublisher | null): Record<string, Method> {
  return {
    dev_advanceClock: (p) => {
      ledger.advanceClock(param(p, 0, isNumber, 'seconds'));
      const { slot, unix } = ledger.tick();
      return { slot, unixTimestamp: n(unix) };
    },
    dev_airdrop: (p) => {
      const wallet = pubkey(param(p, 0, isString, 'wallet'));
      const mint = pubkey(param(p, 1, isString, 'mint'));
      const amount = param(
        p,
        2,
        (v): v is string => isString(v) && /^[0-9]+$/.test(v),
        'amount (integer string)',
      );
      return ledger.airdrop(wallet, mint, BigInt(amount));
    },
    /**
     * [slot]: a fork — every transaction from that slot on is taken back, as if its blocks were never part
     * of the chain (a chain that keeps real time, and a slot finalized does not cover). Answers them.
     */
    dev_rollback: (p) => {
      const { dropped, slot } = ledger.rollback(param(p, 0, isNumber, 'slot'));
      return { dropped, slot };
    },
    dev_clock: () => {
      const { slot, unix } = ledger.tick();
      return { slot, unixTimestamp: n(unix) };
    },
    dev_pyth: (p) => devPyth(pyth, p),
  };
}

export function createRpcMethods(ledger: EmbeddedLedger, pyth: PythPublisher | null = null) {
  const methods: Record<string, Method> = {
    ...clusterMethods(ledger),
    ...accountMethods(ledger),
    ...transactionMethods(ledger),
    ...devMethods(ledger, pyth),
  };
  return (method: string, params: Params): unknown => {
    const fn = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (!fn) throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${method}`);
    return fn(params);
  };
}

export interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

export interface JsonRpcAnswer {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * One JSON-RPC 2.0 request answered by `call` (createRpcMethods), errors as a validator words them: the
 * loopback server and the service's dev RPC route answer alike. `onMethod` hears each well-formed call first.
 */
export function answerJsonRpc(
  call: (method: string, params: Params) => unknown,
  req: JsonRpcRequest,
  onMethod?: (method: string) => void,
): JsonRpcAnswer {
  const id = typeof req?.id === 'string' || typeof req?.id === 'number' ? req.id : null;
  if (!req || typeof req !== 'object' || typeof req.method !== 'string') {
    return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
  }
  onMethod?.(req.method);
  try {
    const params = Array.isArray(req.params) ? req.params : [];
    return { jsonrpc: '2.0', id, result: call(req.method, params) };
  } catch (e) {
    if (e instanceof RpcError) {
      return {
        jsonrpc: '2.0',
        id,
        error: { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) },
      };
    }
    if (e instanceof ChainError) {
      // Refusals the ledger raises outside sendTransaction (airdrop of an unknown mint, …): a client error.
      return { jsonrpc: '2.0', id, error: { code: -32602, message: `${e.code}: ${e.message}` } };
    }
    return {
      jsonrpc: '2.0',
      id,
      error: { code: -32603, message: `Internal error: ${(e as Error).message}` },
    };
  }
}
