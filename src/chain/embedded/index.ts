// The embedded chain port: the default chain, litesvm in this process, durable under DATA_DIR.
// Everything happens synchronously: on the instant chain (the default) a transaction is final the moment
// send() returns; on one that keeps real time (options.timing) it is processed then, and each read sees it
// once its commitment does.

import { AddressLookupTableAccount, type Keypair, PublicKey } from '@solana/web3.js';
import { escrowFromAccount, nameError, pollSignature, reaches } from '../common.ts';
import { ChainError, type TransactionErrorJson } from '../errors.ts';
import { DEFAULT_HTLC_PROGRAM_ID, loadHtlcProgram } from '../htlc/index.ts';
import type {
  AccountFeed,
  ChainPort,
  ChainTransaction,
  Commitment,
  DevChain,
  LandResult,
  SignatureState,
  SignedMakerTransaction,
  TokenBalanceChange,
} from '../port.ts';
import type { PriorityFeePolicy } from '../priority.ts';
import { priceUpdateFromAccount } from '../pyth/account.ts';
import { PythPublisher, type PythPublisherOptions } from '../pyth/publisher.ts';
import { settlementBuilders } from '../settlement.ts';
import { type FastSigner, fastSigner } from '../signer.ts';
import { classifyMint } from '../token.ts';
import { signMakerInstructions } from '../v0.ts';
import { parseWireTransaction } from '../wire.ts';
import { closeExtensions, type GenesisExtension, startExtensions } from './extension.ts';
import { ADDRESS_LOOKUP_TABLE_PROGRAM, type ChainTiming, EmbeddedLedger, type MintConfig } from './ledger.ts';
import type { StoredTokenBalance, StoredTransaction } from './store.ts';

export type { GenesisContext, GenesisExtension, GenesisProgram } from './extension.ts';
export { type ChainTiming, DEFAULT_TIMING, EmbeddedLedger } from './ledger.ts';

const DEFAULT_MAKER_LAMPORTS = 100n * 1_000_000_000n;

export interface EmbeddedChainOptions {
  dataDir: string;
  programId?: PublicKey;
  makerKeypair: Keypair;
  /** freezeAuthority: only for tests of a hostile issuer (the start-up check refuses such a mint). */
  mints: { address: PublicKey | string; decimals: number; symbol: string; freezeAuthority?: PublicKey }[];
  /** Funded into the maker's ATAs the first time the chain sees each (maker, mint). */
  makerInventory: { mint: PublicKey | string; amount: bigint }[];
  /** SOL for the maker's fees and rent, funded once. */
  makerLamports?: bigint;
  /** Wall clock in ms; the chain clock follows it (plus advanceClock). */
  clock?: () => number;
  /** Keep real time (slots on the clock, commitments lagging the tip); absent or null: instant finality. */
  timing?: ChainTiming | null;
  /** The HTLC program binary; defaults to the built programs/htlc/htlc.so. */
  program?: Uint8Array;
  priorityFee?: PriorityFeePolicy;
  /** Pyth price update accounts to publish and keep moving (sponsoredFeedSpecs() for the real feeds). */
  pyth?: PythPublisherOptions;
  /**
   * What the chain carries from genesis on behalf of what is built on it (the embedded venue's pools and
   * keeper, src/venue/genesis.ts): their programs deployed, started in order once the publisher runs,
   * closed with the chain.
   */
  extensions?: readonly GenesisExtension[];
}

export interface EmbeddedChain extends ChainPort, DevChain {
  readonly kind: 'embedded';
  readonly ledger: EmbeddedLedger;
  /** The Pyth publisher when options.pyth was given: its feeds are published from creation until close. */
  readonly pyth: PythPublisher | null;
  /** A fork: every transaction from the slot on is taken back (a chain that keeps real time, unfinalized slots only). */
  rollback(fromSlot: number): Promise<{ dropped: string[] }>;
}

const key = (k: PublicKey | string) => (typeof k === 'string' ? new PublicKey(k) : k);

/** The signature's state as the ledger's commitments see its transaction (final at once on the instant chain). */
export function stateOf(
  record: StoredTransaction | null,
  programId: PublicKey,
  ledger: Pick<EmbeddedLedger, 'commitmentOf'>,
): SignatureState {
  if (!record) return { status: 'unknown' };
  const txError = record.err as TransactionErrorJson | null;
  const err =
    txError === null ? null : nameError(txError, programId, parseWireTransaction(record.bytes)).name;
  const status = ledger.commitmentOf(record.slot);
  return status === 'finalized'
    ? { status, slot: record.slot, err, fee: record.fee }
    : { status, slot: record.slot, err };
}

export function chainTransactionOf(record: StoredTransaction, programId: PublicKey): ChainTransaction {
  const txError = record.err as TransactionErrorJson | null;
  return {
    signature: record.signature,
    slot: record.slot,
    blockTime: record.blockTime,
    err: txError === null ? null : nameError(txError, programId, parseWireTransaction(record.bytes)).name,
    txError,
    fee: record.fee,
    accountKeys: record.accountKeys,
    logs: record.logs,
    transactionBase64: Buffer.from(record.bytes).toString('base64'),
    tokenBalances: record.tokenBalances?.map(tokenBalanceChange) ?? null,
  };
}

function tokenBalanceChange(b: StoredTokenBalance): TokenBalanceChange {
  // A token account keeps its mint for life; its authority is the later one when it changed.
  const side = b.post ?? b.pre;
  return {
    account: b.account,
    mint: side?.mint ?? '',
    owner: side?.owner ?? '',
    pre: b.pre?.amount ?? 0n,
    post: b.post?.amount ?? 0n,
  };
}

/** What every method of one embedded chain shares: built once by `openEmbedded`, passed explicitly. */
interface Embedded {
  programId: PublicKey;
  ledger: EmbeddedLedger;
  pyth: PythPublisher | null;
  extensions: readonly GenesisExtension[];
  closed: boolean;
}

/** The ledger, funded for the maker; then the Pyth publisher and the extensions started on it. */
function openEmbedded(options: EmbeddedChainOptions, programId: PublicKey, maker: FastSigner): Embedded {
  const mints: MintConfig[] = options.mints.map((m) => ({ ...m, address: key(m.address) }));
  const extensions = options.extensions ?? [];
  const ledger = new EmbeddedLedger({
    dataDir: options.dataDir,
    programId,
    program: options.program ?? loadHtlcProgram(),
    // Only what an extension brings: a chain without one stays the HTLC's alone.
    programs: extensions.flatMap((extension) => extension.programs),
    mints,
    funding: [
      {
        owner: maker.publicKey,
        lamports: options.makerLamports ?? DEFAULT_MAKER_LAMPORTS,
        tokens: options.makerInventory.map((i) => ({ mint: key(i.mint), amount: i.amount })),
      },
    ],
    ...(options.clock ? { clock: options.clock } : {}),
    timing: options.timing ?? null,
  });
  const pyth = options.pyth ? new PythPublisher(ledger, options.pyth) : null;
  pyth?.start();
  try {
    startExtensions(extensions, { ledger, pyth });
  } catch (error) {
    pyth?.stop();
    ledger.close();
    throw error;
  }
  return { programId, ledger, pyth, extensions, closed: false };
}

/** What a read at a commitment sees: the escrows (and the clock) as of that commitment's slot. */
const escrowAt = (
  { programId, ledger }: Embedded,
  address: PublicKey,
  commitment: 'confirmed' | 'finalized',
) => escrowFromAccount(programId, ledger.getAccount(address, commitment));

/**
 * Executes; a transaction that ran and failed is on chain (fee paid) and is reported as `rejected` —
 * also when it is sent again (a duplicate answers as its first run did, like a cluster).
 */
function execute(e: Embedded, transactionBase64: string): string {
  if (e.closed) throw new ChainError('unavailable', 'embedded chain is closed');
  const bytes = new Uint8Array(Buffer.from(transactionBase64, 'base64'));
  const out = e.ledger.execute(bytes);
  const { record } = out;
  if (record.err !== null) {
    const err = record.err as TransactionErrorJson;
    const named = nameError(err, e.programId, parseWireTransaction(record.bytes));
    throw new ChainError('rejected', `transaction failed on chain: ${named.name}`, {
      signature: record.signature,
      txError: err,
      logs: record.logs,
      ...(named.htlcError ? { htlcError: named.htlcError } : {}),
    });
  }
  return record.signature;
}

const signatureState = async ({ ledger, programId }: Embedded, signature: string) =>
  stateOf(ledger.transaction(signature), programId, ledger);

/** However confirm() was told, it reads the signature again after this long (a safety net, never the rule). */
const RECHECK_MS = 1_000;

/**
 * Waits until the signature reaches the commitment, or the deadline passes (answering the state last read). An
 * instant chain answers on the first read. On a chain that keeps real time a signature reaches a commitment only
 * as a slot begins, so confirm() waits to be told — the ledger's listeners at that commitment name each
 * transaction as it reaches it, and a rollback too — instead of reading the transaction every 20 ms: sixteen
 * maker transactions waiting for finality were 800 reads (a row and its JSON each) a second.
 */
async function confirm(e: Embedded, signature: string, commitment: Commitment, timeoutMs: number) {
  if (e.ledger.timing === null) {
    return pollSignature(() => signatureState(e, signature), commitment, timeoutMs, 20);
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await signatureState(e, signature);
    const left = deadline - Date.now();
    if (reaches(state, commitment) || left <= 0) return state;
    await told(
      e,
      signature,
      commitment === 'finalized' ? 'finalized' : 'confirmed',
      Math.min(left, RECHECK_MS),
    );
  }
}

/** Resolves when the ledger tells `level` of the signature or of a rollback, or after `ms`. */
function told(e: Embedded, signature: string, level: 'confirmed' | 'finalized', ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stop();
      clearTimeout(timer);
      resolve();
    };
    const stop = e.ledger.onWrite((write) => {
      if (write.signature === signature || write.signature === null) done();
    }, level);
    const timer = setTimeout(done, ms);
  });
}

async function land(
  e: Embedded,
  tx: SignedMakerTransaction,
  commitment: Commitment,
  timeoutMs: number,
): Promise<LandResult> {
  try {
    execute(e, tx.transactionBase64);
  } catch (error) {
    if (error instanceof ChainError && error.code === 'blockhash_expired') {
      const known = await signatureState(e, tx.signature);
      return known.status === 'unknown' ? { status: 'expired' } : known;
    }
    // A failed execution is on chain: report it as a state, like a cluster would.
    if (!(error instanceof ChainError && error.code === 'rejected' && e.ledger.transaction(tx.signature)))
      throw error;
  }
  return confirm(e, tx.signature, commitment, timeoutMs);
}

function watchAccounts(
  e: Embedded,
  onChange: Parameters<ChainPort['watchAccounts']>[0],
  commitment: Commitment,
) {
  // Told as the commitment comes to see each write (at once on the instant chain), and of what a
  // rollback restored; the feed is live until the chain closes.
  const stop = e.ledger.onWrite((write) => onChange(write.addresses), commitment);
  let open = true;
  const feed: AccountFeed = {
    get live() {
      return open && !e.closed;
    },
    generation: 1,
    close: () => {
      open = false;
      stop();
    },
  };
  return feed;
}

const health = ({ closed, ledger }: Embedded) =>
  closed
    ? { ok: false, detail: 'embedded chain closed' }
    : {
        ok: true,
        detail: `embedded litesvm at slot ${ledger.slot()}, ${ledger.transactionCount()} transactions`,
      };

async function close(e: Embedded) {
  if (e.closed) return;
  e.closed = true;
  e.pyth?.stop();
  try {
    await closeExtensions(e.extensions);
  } finally {
    e.ledger.close();
  }
}

/** Reads as the rpc port makes them: the clock at confirmed; block height and blockhashes at the tip. */
function embeddedReads(e: Embedded) {
  const { ledger, programId } = e;
  return {
    now: async () => ledger.clockAt('confirmed').unix,
    blockHeight: async () => ledger.slot(),
    commitmentSlots: async () => ({
      confirmed: ledger.slotAt('confirmed'),
      finalized: ledger.slotAt('finalized'),
    }),
    latestBlockhash: async () => {
      const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash();
      return { blockhash, lastValidBlockHeight };
    },
    readEscrow: async (address, commitment) => escrowAt(e, address, commitment),
    readEscrows: async (addresses, commitment) => addresses.map((a) => escrowAt(e, a, commitment)),
    readEscrowsAndClock: async (addresses, commitment) => {
      const { slot, unix } = ledger.clockAt(commitment);
      const escrows = addresses.map((a) => escrowAt(e, a, commitment));
      return { escrows, now: unix, slot };
    },
    readPriceUpdates: async (accounts, commitment) => {
      const { slot, unix } = ledger.clockAt(commitment);
      const updates = accounts.map((a) => priceUpdateFromAccount(ledger.getAccount(a, commitment)));
      return { updates, clockUnix: Number(unix), slot };
    },
    signaturesForAddress: async (address, commitment, limit = 100, before) =>
      ledger.transactionsForAddress(address.toBase58(), limit, before, commitment).map((r) => {
        const t = chainTransactionOf(r, programId);
        return { signature: t.signature, slot: t.slot, err: t.err, blockTime: t.blockTime };
      }),
    getTransaction: async (signature, commitment) => {
      const r = ledger.transaction(signature, commitment);
      return r ? chainTransactionOf(r, programId) : null;
    },
    readMint: async (mint) => {
      const account = ledger.getAccount(mint);
      return account ? classifyMint(account.owner, account.data) : null;
    },
    tokenBalance: async (owner, mint) => ledger.tokenAmount(owner, mint, 'confirmed'),
    solBalance: async (owner) => ledger.balance(owner, 'confirmed'),
  } satisfies Partial<ChainPort>;
}

export function createEmbeddedChain(options: EmbeddedChainOptions): EmbeddedChain {
  const programId = options.programId ?? DEFAULT_HTLC_PROGRAM_ID;
  const maker = fastSigner(options.makerKeypair);
  const e = openEmbedded(options, programId, maker);
  const { ledger } = e;
  const lifetime = async () => ledger.latestBlockhash();
  return {
    kind: 'embedded',
    programId,
    makerWallet: maker.publicKey,
    ledger,
    pyth: e.pyth,
    instantFinality: ledger.timing === null,
    ...embeddedReads(e),
    ...settlementBuilders({
      programId,
      maker,
      ...(options.priorityFee ? { priorityFee: options.priorityFee } : {}),
      lifetime,
    }),
    signMakerInstructions: (a) =>
      signMakerInstructions(
        {
          maker,
          lifetime,
          lookupTables: async (addresses) => addresses.map((address) => lookupTable(ledger, address)),
        },
        a,
      ),
    submitSigned: async (transactionBase64) => ({ signature: execute(e, transactionBase64) }),
    send: async (tx) => {
      execute(e, tx.transactionBase64);
    },
    signatureState: (signature) => signatureState(e, signature),
    confirm: (signature, commitment, timeoutMs) => confirm(e, signature, commitment, timeoutMs),
    land: (tx, commitment, timeoutMs) => land(e, tx, commitment, timeoutMs),
    watchAccounts: (onChange, commitment = 'finalized') => watchAccounts(e, onChange, commitment),
    health: async () => health(e),
    close: () => close(e),
    airdrop: async ({ wallet, mint, amount }) => ({ signature: ledger.airdrop(wallet, mint, amount) }),
    advanceClock: async (seconds) => ledger.advanceClock(seconds),
    rollback: async (fromSlot) => ({ dropped: ledger.rollback(fromSlot).dropped }),
  };
}

/** The address lookup table at the address, as the ledger holds it; ChainError when there is none. */
export function lookupTable(ledger: EmbeddedLedger, address: PublicKey): AddressLookupTableAccount {
  const account = ledger.getAccount(address);
  if (!account || account.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM) {
    throw new ChainError('invalid_transaction', `no address lookup table at ${address.toBase58()}`);
  }
  return new AddressLookupTableAccount({
    key: address,
    state: AddressLookupTableAccount.deserialize(account.data),
  });
}
