// The embedded chain itself: litesvm plus the things a cluster has and litesvm lacks — a clock that
// follows wall time, slots and expiring blockhashes, a transaction history, a faucet, and durable
// state. Shared by the in-process ChainPort and the loopback JSON-RPC server. Its clock and blockhashes
// are time.ts's; the mints and funds it places at start, genesis.ts's; what each commitment sees on a
// chain that keeps real time, and what a rollback takes back, commitments.ts's.

import { randomBytes } from 'node:crypto';
import { AddressLookupTableAccount, Keypair, PublicKey } from '@solana/web3.js';
import {
  Account,
  Clock,
  FailedTransactionMetadata,
  LiteSvm,
  type TransactionMetadata,
} from 'litesvm/dist/internal.js';
import { encodeBase58 } from '../../vocabulary/base58.ts';
import { ChainError, type ChainErrorCode, liteErrorToJson, type TransactionErrorJson } from '../errors.ts';
import { keyBase58, keyBytes, publicKey } from '../keys.ts';
import { type FastSigner, fastSigner } from '../signer.ts';
import { ata, decodeMint, readTokenAccount, TOKEN_PROGRAM_ID } from '../token.ts';
import {
  isWritableIndex,
  missingSigners,
  parseWireTransaction,
  signatureOf,
  type WireTransaction,
} from '../wire.ts';
import { Commitments, type WriteListener } from './commitments.ts';
import { airdrop, requestAirdrop } from './faucet.ts';
import { type GenesisFunding, genesisWrites, type MintConfig } from './genesis.ts';
import {
  ChainStore,
  type LoadedAddresses,
  type StoredAccount,
  type StoredTokenBalance,
  type StoredTokenSide,
  type StoredTransaction,
} from './store.ts';
import {
  BLOCKHASH_VALIDITY,
  ChainTime,
  type ChainTiming,
  type CommitmentLevel,
  type SeedHash,
  SLOT_MS,
  seedHash,
} from './time.ts';

const SLOTS_PER_EPOCH = 432_000n;

/** Signatures litesvm remembers to refuse a duplicate in flight (the store answers any older one). */
const LITESVM_HISTORY = 500n;
export const LAMPORTS_PER_SIGNATURE = 5_000n;
const SYSVAR_OWNER = 'Sysvar1111111111111111111111111111111111111';
export const CLOCK_SYSVAR = 'SysvarC1ock11111111111111111111111111111111';
export const ADDRESS_LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';
/** Recent slots the SlotHashes sysvar names: a lookup table is created against one of them. */
export const SLOT_HASHES_KEPT = 32;

export type { LedgerWrite } from './commitments.ts';
export { AIRDROP_SOL_RESERVE } from './faucet.ts';
export type { GenesisFunding, MintConfig } from './genesis.ts';
export {
  BLOCKHASH_VALIDITY,
  type ChainTiming,
  COMMITMENTS,
  type CommitmentLevel,
  DEFAULT_TIMING,
  SLOT_MS,
} from './time.ts';

export interface LedgerOptions {
  dataDir: string;
  programId: PublicKey;
  /** The HTLC program binary; null runs without it (tests of the plumbing only). */
  program: Uint8Array | null;
  /** Further programs deployed at genesis (the venue's AMM), each at its fixed id. */
  programs?: readonly { programId: PublicKey; program: Uint8Array }[];
  mints: MintConfig[];
  /** Funded once per (owner, asset), the first time the chain sees it. */
  funding: GenesisFunding[];
  /** Wall clock in milliseconds (Date.now by default). */
  clock?: () => number;
  /**
   * Keep real time: slots of timing.slotMs, each commitment lagging the tip (time.ts). Absent or null: the
   * instant chain, where every commitment sees a transaction the moment it lands.
   */
  timing?: ChainTiming | null;
}

export type ExecuteOutcome =
  | { kind: 'landed'; record: StoredTransaction }
  | { kind: 'duplicate'; record: StoredTransaction };

export interface SimulationOutcome {
  err: TransactionErrorJson | null;
  logs: string[];
  computeUnits: bigint;
  /** The accounts asked for, as the simulation left them (null: none, or closed); empty when none were asked. */
  accounts: (StoredAccount | null)[];
}

export interface SimulateOptions {
  sigVerify: boolean;
  /** Run whatever the transaction's blockhash (a cluster's `replaceRecentBlockhash`). */
  replaceRecentBlockhash?: boolean;
  /** The accounts to answer after the simulation (a cluster's `accounts.addresses`). */
  accounts?: readonly string[];
}

/** The Clock sysvar's layout: slot, epoch start, epoch, leader schedule epoch, unix timestamp. */
const CLOCK_SYSVAR_SIZE = 40;

export class EmbeddedLedger {
  readonly programId: PublicKey;
  readonly faucet: FastSigner;
  readonly genesisHash: string;
  private readonly svm: LiteSvm;
  private readonly store: ChainStore;
  private readonly wallMs: () => number;
  private readonly hash: SeedHash;
  private readonly time: ChainTime;
  private clockSet = { slot: -1, unix: -1n };
  private readonly mintDecimals = new Map<string, number>();
  private broken: Error | null = null;
  private readonly commitments: Commitments;
  private slotTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: LedgerOptions) {
    this.programId = options.programId;
    this.wallMs = options.clock ?? Date.now;
    this.store = new ChainStore(options.dataDir);
    const fresh = this.store.meta('seed') === undefined;
    if (fresh) {
      const now = this.wallMs();
      this.store.setMeta({
        seed: randomBytes(32).toString('hex'),
        genesis_ms: String(now),
        genesis_unix: String(Math.floor(now / 1000)),
        time_offset_s: '0',
        slot_offset: '0',
      });
    }
    this.hash = seedHash(Buffer.from(this.store.meta('seed') ?? '', 'hex'));
    const timing = options.timing ?? null;
    this.time = new ChainTime(this.store, this.wallMs, this.hash, timing?.slotMs ?? SLOT_MS);
    this.commitments = new Commitments(timing, () => this.slot(), this.store.maxSlot() ?? -1);
    this.genesisHash = encodeBase58(this.hash('genesis'));
    // The faucet is derived from the data dir's seed, so it is the same key after every restart.
    this.faucet = fastSigner(Keypair.fromSeed(this.hash('faucet')));

    this.svm = new LiteSvm();
    this.svm.setTransactionHistory(LITESVM_HISTORY);
    this.svm.setSigverify(true);
    // litesvm accepts only its single latest blockhash; we check recent blockhashes like a cluster.
    this.svm.setBlockhashCheck(false);
    this.svm.withNativeMints();
    if (options.program) this.svm.addProgram(options.programId.toBytes(), options.program);
    for (const extra of options.programs ?? []) this.svm.addProgram(extra.programId.toBytes(), extra.program);
    for (const a of this.store.accounts()) this.setAccount(a);
    this.tick();
    this.genesis(fresh);
    if (timing) this.followSlots();
  }

  /** The chain keeps real time (its commitments lag the tip); null: instant, everything final on landing. */
  get timing(): ChainTiming | null {
    return this.commitments.timing;
  }

  /** Wakes at each slot's start: what became confirmed or finalized is told to its listeners then. */
  private followSlots(): void {
    this.slotTimer = setTimeout(() => {
      this.tick();
      this.commitments.advance();
      this.followSlots();
    }, this.time.msToNextSlot() + 1);
    this.slotTimer.unref?.();
  }

  // ---------------------------------------------------------------- time, slots, blockhashes

  /** The slot (= block height: no slot is ever skipped) the chain is at now: its tip, what processed sees. */
  slot(): number {
    return this.time.slot();
  }

  /** The slot (= block height) a commitment has reached: the tip, less its lag on a chain keeping real time. */
  slotAt(commitment: CommitmentLevel): number {
    return Math.max(0, this.commitments.slotAt(commitment));
  }

  /** The strongest commitment that sees a transaction of this slot (every one, on the instant chain). */
  commitmentOf(slot: number): CommitmentLevel {
    return this.commitments.levelOf(slot);
  }

  /** The Clock sysvar as a commitment sees it: its slot, and the unix time that slot began at. */
  clockAt(commitment: CommitmentLevel): { slot: number; unix: bigint } {
    const now = this.tick();
    const slot = this.slotAt(commitment);
    if (slot === now.slot) return now;
    return { slot, unix: this.commitments.unixAt(slot) ?? now.unix };
  }

  unixTime(): bigint {
    return this.time.unixTime();
  }

  /** Refreshes the Clock sysvar from wall time; runs before every transaction and every read of time. */
  tick(): { slot: number; unix: bigint } {
    const slot = this.slot();
    const unix = this.unixTime();
    if (slot !== this.clockSet.slot || unix !== this.clockSet.unix) {
      const epoch = BigInt(slot) / SLOTS_PER_EPOCH;
      const genesisUnix = BigInt(this.store.meta('genesis_unix') ?? '0');
      this.svm.setClock(new Clock(BigInt(slot), genesisUnix, epoch, epoch + 1n, unix));
      // SlotHashes names the recent slots, newest first, as a cluster's does: the lookup-table program
      // checks a new table's recent_slot against it.
      if (slot !== this.clockSet.slot) {
        const hashes = [];
        for (let s = slot - 1; s >= Math.max(0, slot - SLOT_HASHES_KEPT); s--) {
          hashes.push({ slot: BigInt(s), hash: this.blockhashAt(s) });
        }
        this.svm.setSlotHashes(hashes);
      }
      this.clockSet = { slot, unix };
      this.commitments.recordUnix(slot, unix);
    }
    return { slot, unix };
  }

  /**
   * A keypair of this chain's own (the venue's liquidity admin and keeper), derived from the data dir's
   * seed like the faucet's: the same key after every restart, and nobody else's.
   */
  devKeypair(label: string): Keypair {
    return Keypair.fromSeed(this.hash(`dev-keypair:${label}`));
  }

  /** A value something built on this chain keeps with it (the venue's lookup tables), durable like its accounts. */
  note(key: string): string | undefined {
    return this.store.meta(`note:${key}`);
  }

  setNote(key: string, value: string): void {
    this.store.setMeta({ [`note:${key}`]: value });
  }

  blockhashAt(slot: number): string {
    return this.time.blockhashAt(slot);
  }

  /** The blockhash of the slot the commitment has reached, valid for BLOCKHASH_VALIDITY blocks after it. */
  latestBlockhash(commitment: CommitmentLevel = 'processed'): {
    blockhash: string;
    lastValidBlockHeight: number;
    slot: number;
  } {
    if (commitment === 'processed') return this.time.latestBlockhash();
    const slot = this.slotAt(commitment);
    return { blockhash: this.blockhashAt(slot), lastValidBlockHeight: slot + BLOCKHASH_VALIDITY, slot };
  }

  /**
   * The slot a blockhash names when it is valid at the commitment's block height, or null when it is unknown
   * there or expired (a transaction is admitted at processed).
   */
  blockhashSlot(blockhash: string, commitment: CommitmentLevel = 'processed'): number | null {
    return this.time.blockhashSlot(blockhash, this.slotAt(commitment));
  }

  /** Moves chain time forward; slots move with it, so blockhashes older than the jump expire. */
  advanceClock(seconds: number): void {
    this.time.advance(seconds);
    this.tick();
    this.store.setMeta(this.time.meta());
    this.commitments.advance();
  }

  // ---------------------------------------------------------------- accounts

  private setAccount(a: StoredAccount): void {
    this.svm.setAccount(
      new PublicKey(a.address).toBytes(),
      new Account(a.lamports, a.data, new PublicKey(a.owner).toBytes(), a.executable, 0n),
    );
  }

  /**
   * The account as the commitment sees it (default: the tip). Accounts placed outside transactions (the
   * Pyth publisher's) are the same at every commitment.
   */
  getAccount(address: string | PublicKey, commitment: CommitmentLevel = 'processed'): StoredAccount | null {
    const key = typeof address === 'string' ? publicKey(address) : address;
    const b58 = keyBase58(key);
    if (b58 === CLOCK_SYSVAR) this.tick();
    if (commitment === 'processed' || !this.commitments.keepsHistory) return this.currentAccount(key, b58);
    if (b58 === CLOCK_SYSVAR) return this.clockAccount(commitment);
    return this.commitments.accountAt(b58, commitment, () => this.currentAccount(key, b58));
  }

  private currentAccount(key: PublicKey, b58: string): StoredAccount | null {
    const acc = this.svm.getAccount(keyBytes(key));
    if (!acc) return null;
    const lamports = acc.lamports();
    if (lamports === 0n) return null;
    return {
      address: b58,
      lamports,
      owner: encodeBase58(acc.owner()),
      executable: acc.executable(),
      data: acc.data(),
    };
  }

  /** The Clock sysvar as it stood at the commitment's slot (layout: docs of the Clock sysvar). */
  private clockAccount(commitment: CommitmentLevel): StoredAccount | null {
    const tip = this.currentAccount(publicKey(CLOCK_SYSVAR), CLOCK_SYSVAR);
    if (!tip) return null;
    const { slot, unix } = this.clockAt(commitment);
    const data = Buffer.alloc(CLOCK_SYSVAR_SIZE);
    const epoch = BigInt(slot) / SLOTS_PER_EPOCH;
    data.writeBigUInt64LE(BigInt(slot), 0);
    data.writeBigInt64LE(BigInt(this.store.meta('genesis_unix') ?? '0'), 8);
    data.writeBigUInt64LE(epoch, 16);
    data.writeBigUInt64LE(epoch + 1n, 24);
    data.writeBigInt64LE(unix, 32);
    return { ...tip, data: new Uint8Array(data) };
  }

  /**
   * Puts an account in place outside any transaction, rent-exempt: the embedded stand-in for accounts
   * another program's off-chain writer keeps current (Pyth price updates, see pyth/publisher.ts). Not
   * persisted, since that writer republishes at start, and not announced to onWrite listeners, which
   * follow transactions.
   */
  placeAccount(address: PublicKey, owner: PublicKey, data: Uint8Array): void {
    this.setAccount({
      address: keyBase58(address),
      lamports: this.minimumBalanceForRentExemption(data.length),
      owner: keyBase58(owner),
      executable: false,
      data,
    });
  }

  balance(address: PublicKey | string, commitment: CommitmentLevel = 'processed'): bigint {
    return this.getAccount(address, commitment)?.lamports ?? 0n;
  }

  tokenAmount(owner: PublicKey, mint: PublicKey, commitment: CommitmentLevel = 'processed'): bigint {
    const acc = this.getAccount(ata(owner, mint), commitment);
    if (!acc || acc.owner !== TOKEN_PROGRAM_ID.toBase58()) return 0n;
    return readTokenAccount(acc.data)?.amount ?? 0n;
  }

  decimalsOf(mint: PublicKey | string): number | null {
    const key = typeof mint === 'string' ? mint : mint.toBase58();
    const cached = this.mintDecimals.get(key);
    if (cached !== undefined) return cached;
    const acc = this.getAccount(key);
    if (!acc || acc.owner !== TOKEN_PROGRAM_ID.toBase58() || acc.data.length !== 82) return null;
    const decimals = decodeMint(acc.data).decimals;
    this.mintDecimals.set(key, decimals);
    return decimals;
  }

  minimumBalanceForRentExemption(dataLen: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(dataLen));
  }

  // ---------------------------------------------------------------- genesis

  /** Places the configured mints and funds whoever the config funds, once each; persisted at once. */
  private genesis(fresh: boolean): void {
    const { accounts, flags } = genesisWrites(
      {
        faucet: this.faucet.publicKey,
        getAccount: (address) => this.getAccount(address),
        balance: (address) => this.balance(address),
        decimalsOf: (mint) => this.decimalsOf(mint),
        minimumBalanceForRentExemption: (dataLen) => this.minimumBalanceForRentExemption(dataLen),
        place: (account) => this.setAccount(account),
        flag: (key) => this.store.meta(key),
      },
      this.options,
      fresh,
    );
    if (accounts.length > 0 || Object.keys(flags).length > 0) {
      this.store.commit({
        accounts: accounts.map((account) => ({ address: account.address, account })),
        meta: flags,
      });
    }
  }

  // ---------------------------------------------------------------- transactions

  private assertUsable(): void {
    if (this.broken) {
      throw new ChainError(
        'unavailable',
        `embedded chain stopped after a persistence failure: ${this.broken.message}`,
      );
    }
  }

  /** Checks that happen before a cluster would even schedule the transaction. */
  private admit(bytes: Uint8Array): {
    tx: WireTransaction;
    signature: string;
    duplicate: StoredTransaction | null;
    loaded: LoadedAddresses | null;
  } {
    this.assertUsable();
    const tx = parseWireTransaction(bytes);
    const loaded = tx.version === 'legacy' ? null : this.loadAddresses(tx);
    const missing = missingSigners(tx);
    if (missing.length > 0) {
      throw new ChainError('missing_signature', `transaction lacks the signature of ${missing.join(', ')}`);
    }
    const signature = signatureOf(tx);
    const duplicate = this.store.transaction(signature);
    if (!duplicate && this.blockhashSlot(tx.recentBlockhash) === null) {
      throw new ChainError('blockhash_expired', 'blockhash not found or expired', { signature });
    }
    return { tx, signature, duplicate, loaded };
  }

  /**
   * The keys a v0 message loads from its address lookup tables, as the runtime loads them: each table
   * owned by the lookup-table program, each index among the table's active addresses (those extended in
   * the current slot are not usable yet). Anything else is refused before the transaction runs, as a
   * cluster's sanitization refuses it.
   */
  loadAddresses(tx: Pick<WireTransaction, 'addressTableLookups'>): LoadedAddresses {
    const writable: string[] = [];
    const readonly: string[] = [];
    const slot = this.slot();
    for (const lookup of tx.addressTableLookups) {
      const account = this.getAccount(lookup.accountKey);
      if (!account || account.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM) {
        throw new ChainError('invalid_transaction', `address lookup table ${lookup.accountKey} not found`);
      }
      let addresses: PublicKey[];
      let active: number;
      try {
        const state = AddressLookupTableAccount.deserialize(account.data);
        addresses = state.addresses;
        active =
          BigInt(slot) > BigInt(state.lastExtendedSlot) ? addresses.length : state.lastExtendedSlotStartIndex;
      } catch {
        throw new ChainError(
          'invalid_transaction',
          `address lookup table ${lookup.accountKey} does not decode`,
        );
      }
      const pick = (index: number) => {
        const key = index < active ? addresses[index] : undefined;
        if (!key) {
          throw new ChainError(
            'invalid_transaction',
            `address lookup table ${lookup.accountKey} has no active address at index ${index}`,
          );
        }
        return keyBase58(key);
      };
      writable.push(...lookup.writableIndexes.map(pick));
      readonly.push(...lookup.readonlyIndexes.map(pick));
    }
    return { writable, readonly };
  }

  /**
   * Executes signed wire bytes. A transaction that ran (successfully or not: a failed one still pays
   * its fee) is persisted, accounts and record together, before this returns. Pre-execution
   * refusals throw ChainError and leave no trace, as on a cluster.
   */
  execute(bytes: Uint8Array): ExecuteOutcome {
    const { tx, signature, duplicate, loaded } = this.admit(bytes);
    if (duplicate) return { kind: 'duplicate', record: duplicate };
    const { slot, unix } = this.tick();
    // Static keys, then the lookup tables' writable and readonly keys: the order of meta's balances.
    const allKeys = [...tx.accountKeys, ...(loaded?.writable ?? []), ...(loaded?.readonly ?? [])];
    const loadedWritableEnd = tx.accountKeys.length + (loaded?.writable.length ?? 0);
    const writableAt = (i: number) =>
      i < tx.accountKeys.length ? isWritableIndex(tx, i) : i < loadedWritableEnd;
    const keys = allKeys.map((k) => new PublicKey(k).toBytes());
    // A chain whose commitments lag keeps what the transaction overwrites until it is final.
    const before = this.commitments.keepsHistory ? this.writableBefore(allKeys, writableAt) : null;
    const preBalances = keys.map((k) => this.svm.getBalance(k) ?? 0n);
    // Invoked programs are never token accounts, and reading one copies its whole binary.
    const programs = new Set(tx.instructions.map((ix) => ix.programIdIndex));
    const preTokens = this.tokenSides(keys, programs);
    const result =
      tx.version === 'legacy'
        ? this.svm.sendLegacyTransaction(bytes)
        : this.svm.sendVersionedTransaction(bytes);

    let err: TransactionErrorJson | null = null;
    let meta: TransactionMetadata;
    if (result instanceof FailedTransactionMetadata) {
      const raw = result.err();
      if (typeof raw === 'number') throw refusal(raw, liteErrorToJson(raw), signature, result.meta().logs());
      err = liteErrorToJson(raw);
      meta = result.meta();
    } else {
      meta = result;
    }
    const postBalances = keys.map((k) => this.svm.getBalance(k) ?? 0n);
    const postTokens = this.tokenSides(keys, programs);
    // Lamports only move between the transaction's own accounts; what went missing is the fee.
    const fee = preBalances.reduce((s, b) => s + b, 0n) - postBalances.reduce((s, b) => s + b, 0n);

    const accounts: { address: string; account: StoredAccount | null }[] = [];
    allKeys.forEach((address, i) => {
      if (!writableAt(i)) return;
      const account = this.getAccount(address);
      if (account && (account.executable || account.owner === SYSVAR_OWNER)) return;
      accounts.push({ address, account });
    });
    const record: StoredTransaction = {
      signature,
      slot,
      blockTime: Number(unix),
      err,
      fee,
      computeUnits: meta.computeUnitsConsumed(),
      logs: meta.logs(),
      accountKeys: tx.accountKeys,
      loadedAddresses: loaded,
      preBalances,
      postBalances,
      tokenBalances: tokenBalancesOf(allKeys, preTokens, postTokens),
      bytes: new Uint8Array(bytes),
    };
    try {
      this.store.commit({
        accounts,
        transaction: record,
        meta: this.time.lastMeta(),
      });
    } catch (e) {
      // The VM moved on but the disk did not: refuse everything from now on rather than diverge.
      this.broken = e as Error;
      throw new ChainError(
        'unavailable',
        `embedded chain could not persist a transaction: ${(e as Error).message}`,
        {
          cause: e,
        },
      );
    }
    const written = err === null ? accounts : accounts.filter((a) => a.address === tx.accountKeys[0]);
    this.commitments.landed({ signature, slot, addresses: written.map((a) => a.address) }, before);
    return { kind: 'landed', record };
  }

  /** The transaction's writable accounts as they are before it runs (programs and sysvars aside). */
  private writableBefore(
    keys: readonly string[],
    writableAt: (i: number) => boolean,
  ): Map<string, StoredAccount | null> {
    const before = new Map<string, StoredAccount | null>();
    keys.forEach((address, i) => {
      if (!writableAt(i) || before.has(address)) return;
      const account = this.getAccount(address);
      if (account && (account.executable || account.owner === SYSVAR_OWNER)) return;
      before.set(address, account);
    });
    return before;
  }

  /**
   * Tells the listener, synchronously, which accounts each executed transaction wrote once the commitment
   * sees it (default processed: as soon as it is persisted; on the instant chain every commitment sees it
   * then), and which accounts a rollback restored (signature null). Answers the unsubscribe function.
   */
  onWrite(listener: WriteListener, commitment: CommitmentLevel = 'processed'): () => void {
    return this.commitments.onWrite(listener, commitment);
  }

  /**
   * A fork: takes back every transaction from `fromSlot` on, as if the blocks from that slot were never
   * part of the chain — their accounts as they were before, their records gone. Only on a chain that keeps
   * real time, and only slots no finalized block covers. Answers the signatures taken back, oldest first.
   */
  rollback(fromSlot: number): { dropped: string[]; slot: number } {
    this.assertUsable();
    if (!this.commitments.keepsHistory) {
      throw new ChainError('not_supported', 'an instant chain finalizes every transaction as it lands');
    }
    const finalized = this.commitments.slotAt('finalized');
    if (!Number.isInteger(fromSlot) || fromSlot <= finalized) {
      throw new ChainError(
        'invalid_transaction',
        `slot ${fromSlot} cannot be rolled back: the chain is finalized up to slot ${finalized}`,
      );
    }
    const { signatures, restored, confirmedAddresses } = this.commitments.rollback(fromSlot);
    // A transaction the fork took back may land again on the new fork while its blockhash lives (anyone who
    // saw it may send it): litesvm's own record of processed signatures would refuse it (AlreadyProcessed).
    // Emptied here; the store is the record of what is on chain (admit() answers a duplicate from it).
    this.svm.setTransactionHistory(0n);
    this.svm.setTransactionHistory(LITESVM_HISTORY);
    for (const [address, account] of restored) {
      this.setAccount(account ?? emptyAccount(address));
      this.mintDecimals.delete(address);
    }
    try {
      this.store.commit({
        accounts: [...restored].map(([address, account]) => ({ address, account })),
        dropped: signatures,
      });
    } catch (e) {
      this.broken = e as Error;
      throw new ChainError(
        'unavailable',
        `embedded chain could not persist a rollback: ${(e as Error).message}`,
        {
          cause: e,
        },
      );
    }
    const slot = this.slot();
    this.commitments.rolledBack(slot, [...restored.keys()], confirmedAddresses);
    return { dropped: signatures, slot };
  }

  /** The classic SPL token account (initialized) at each key as it is now; null where there is none. */
  private tokenSides(keys: Uint8Array[], skip: Set<number>): (StoredTokenSide | null)[] {
    return keys.map((key, i) => {
      const acc = skip.has(i) ? null : this.svm.getAccount(key);
      if (!acc || acc.lamports() === 0n || !TOKEN_PROGRAM_BYTES.equals(acc.owner())) return null;
      const data = acc.data();
      // Read straight off the classic layout (mint 0..32, owner 32..64, amount u64 LE at 64): this runs for
      // every account of every transaction, twice.
      if (data.length < TOKEN_STATE_OFFSET + 1 || data[TOKEN_STATE_OFFSET] === 0) return null;
      const mint = encodeBase58(data.subarray(0, 32));
      return {
        mint,
        owner: encodeBase58(data.subarray(32, 64)),
        amount: Buffer.from(data.buffer, data.byteOffset, data.byteLength).readBigUInt64LE(64),
        decimals: this.decimalsOf(mint) ?? 0,
      };
    });
  }

  /** Runs the transaction without committing anything (preflight, simulateTransaction). */
  simulate(bytes: Uint8Array, opts: SimulateOptions = { sigVerify: true }): SimulationOutcome {
    this.assertUsable();
    const tx = parseWireTransaction(bytes);
    const none = { logs: [], computeUnits: 0n, accounts: [] };
    if (opts.sigVerify && missingSigners(tx).length > 0) {
      throw new ChainError('missing_signature', 'transaction lacks a signature');
    }
    if (this.store.transaction(signatureOf(tx)) && opts.sigVerify) {
      return { err: 'AlreadyProcessed', ...none };
    }
    if (!opts.replaceRecentBlockhash && this.blockhashSlot(tx.recentBlockhash) === null)
      return { err: 'BlockhashNotFound', ...none };
    this.tick();
    if (!opts.sigVerify) this.svm.setSigverify(false);
    try {
      const r =
        tx.version === 'legacy'
          ? this.svm.simulateLegacyTransaction(bytes)
          : this.svm.simulateVersionedTransaction(bytes);
      if (r instanceof FailedTransactionMetadata) {
        const m = r.meta();
        return {
          err: liteErrorToJson(r.err()),
          logs: m.logs(),
          computeUnits: m.computeUnitsConsumed(),
          accounts: (opts.accounts ?? []).map((a) => this.getAccount(a)),
        };
      }
      const m = r.meta();
      // What the simulation wrote, by address; an account it did not touch is as the ledger holds it.
      const post = new Map<string, StoredAccount | null>();
      for (const entry of r.postAccounts()) {
        const account = entry.account();
        const address = encodeBase58(entry.address);
        post.set(
          address,
          account.lamports() === 0n
            ? null
            : {
                address,
                lamports: account.lamports(),
                owner: encodeBase58(account.owner()),
                executable: account.executable(),
                data: account.data(),
              },
        );
      }
      return {
        err: null,
        logs: m.logs(),
        computeUnits: m.computeUnitsConsumed(),
        accounts: (opts.accounts ?? []).map((a) =>
          post.has(a) ? (post.get(a) ?? null) : this.getAccount(a),
        ),
      };
    } finally {
      if (!opts.sigVerify) this.svm.setSigverify(true);
    }
  }

  /** The transaction when the commitment sees it (default: once it landed). */
  transaction(signature: string, commitment: CommitmentLevel = 'processed'): StoredTransaction | null {
    const record = this.store.transaction(signature);
    return record && record.slot <= this.commitments.slotAt(commitment) ? record : null;
  }

  /** Newest first, those the commitment sees (default: every landed one). */
  transactionsForAddress(
    address: string,
    limit: number,
    before?: string,
    commitment: CommitmentLevel = 'processed',
  ): StoredTransaction[] {
    const records = this.store.transactionsForAddress(address, limit, before);
    const seen = this.commitments.slotAt(commitment);
    return records.filter((record) => record.slot <= seen);
  }

  transactionCount(): number {
    return this.store.transactionCount();
  }

  // ---------------------------------------------------------------- faucet

  /** Plain SOL from the faucet (requestAirdrop). */
  requestAirdrop(wallet: PublicKey, lamports: bigint): string {
    return requestAirdrop(this, wallet, lamports);
  }

  /**
   * The dev airdrop: the asset (SOL as native lamports, which a lock wraps; any other configured mint
   * by MintTo from the faucet) plus a top-up to AIRDROP_SOL_RESERVE for fees and rent.
   */
  airdrop(wallet: PublicKey, mint: PublicKey, amount: bigint): string {
    return airdrop(this, wallet, mint, amount);
  }

  close(): void {
    if (this.slotTimer) clearTimeout(this.slotTimer);
    this.slotTimer = null;
    this.store.close();
  }
}

/** An account a rollback takes back to before its creation: no lamports, which reads as no account. */
const emptyAccount = (address: string): StoredAccount => ({
  address,
  lamports: 0n,
  owner: SYSTEM_PROGRAM_ID,
  executable: false,
  data: new Uint8Array(),
});
const SYSTEM_PROGRAM_ID = '11111111111111111111111111111111';

/** A transaction litesvm refused before running it: nothing landed, nothing is charged. */
function refusal(code: number, json: TransactionErrorJson, signature: string, logs: string[]): ChainError {
  const byName: Record<string, ChainErrorCode> = {
    SignatureFailure: 'invalid_signature',
    MissingSignatureForFee: 'missing_signature',
    AccountNotFound: 'insufficient_funds',
    InsufficientFundsForFee: 'insufficient_funds',
    BlockhashNotFound: 'blockhash_expired',
    SanitizeFailure: 'invalid_transaction',
  };
  const name = typeof json === 'string' ? json : String(code);
  return new ChainError(byName[name] ?? 'rejected', `transaction refused: ${name}`, {
    signature,
    txError: json,
    logs,
  });
}

const TOKEN_PROGRAM_BYTES = TOKEN_PROGRAM_ID.toBuffer();
/** AccountState byte of a token account: 0 = uninitialized (not a token account yet, as RPC sees it). */
const TOKEN_STATE_OFFSET = 108;

/** Token accounts that existed before or after, in account-key order (meta.pre/postTokenBalances merged). */
function tokenBalancesOf(
  accountKeys: string[],
  pre: (StoredTokenSide | null)[],
  post: (StoredTokenSide | null)[],
): StoredTokenBalance[] {
  const out: StoredTokenBalance[] = [];
  accountKeys.forEach((account, i) => {
    const before = pre[i] ?? null;
    const after = post[i] ?? null;
    if (before || after) out.push({ account, pre: before, post: after });
  });
  return out;
}
