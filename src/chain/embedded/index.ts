// The embedded chain port: the default chain, litesvm in this process, durable under DATA_DIR.
// Everything happens synchronously, so a transaction is final the moment send() returns.

import { AddressLookupTableAccount, type Keypair, PublicKey } from '@solana/web3.js';
import { escrowFromAccount, nameError, pollSignature } from '../common.ts';
import { ChainError, type TransactionErrorJson } from '../errors.ts';
import { DEFAULT_HTLC_PROGRAM_ID, loadHtlcProgram } from '../htlc/index.ts';
import type {
  AccountFeed,
  ChainPort,
  ChainTransaction,
  DevChain,
  LandResult,
  SignatureState,
  TokenBalanceChange,
} from '../port.ts';
import type { PriorityFeePolicy } from '../priority.ts';
import { priceUpdateFromAccount } from '../pyth/account.ts';
import { PythPublisher, type PythPublisherOptions } from '../pyth/publisher.ts';
import { settlementBuilders } from '../settlement.ts';
import { fastSigner } from '../signer.ts';
import { classifyMint } from '../token.ts';
import { signMakerInstructions } from '../v0.ts';
import { parseWireTransaction } from '../wire.ts';
import { closeExtensions, type GenesisExtension, startExtensions } from './extension.ts';
import { ADDRESS_LOOKUP_TABLE_PROGRAM, EmbeddedLedger, type MintConfig } from './ledger.ts';
import type { StoredTokenBalance, StoredTransaction } from './store.ts';

export type { GenesisContext, GenesisExtension, GenesisProgram } from './extension.ts';
export { EmbeddedLedger } from './ledger.ts';

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
}

const key = (k: PublicKey | string) => (typeof k === 'string' ? new PublicKey(k) : k);

export function stateOf(record: StoredTransaction | null, programId: PublicKey): SignatureState {
  if (!record) return { status: 'unknown' };
  const err = record.err as TransactionErrorJson | null;
  return {
    status: 'finalized',
    slot: record.slot,
    err: err === null ? null : nameError(err, programId, parseWireTransaction(record.bytes)).name,
    fee: record.fee,
  };
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

export function createEmbeddedChain(options: EmbeddedChainOptions): EmbeddedChain {
  const programId = options.programId ?? DEFAULT_HTLC_PROGRAM_ID;
  const maker = fastSigner(options.makerKeypair);
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
  });
  let closed = false;
  const pyth = options.pyth ? new PythPublisher(ledger, options.pyth) : null;
  pyth?.start();
  try {
    startExtensions(extensions, { ledger, pyth });
  } catch (error) {
    pyth?.stop();
    ledger.close();
    throw error;
  }

  const builders = settlementBuilders({
    programId,
    maker,
    ...(options.priorityFee ? { priorityFee: options.priorityFee } : {}),
    lifetime: async () => ledger.latestBlockhash(),
  });

  /**
   * Executes; a transaction that ran and failed is on chain (fee paid) and is reported as `rejected` —
   * also when it is sent again (a duplicate answers as its first run did, like a cluster).
   */
  function execute(transactionBase64: string): string {
    if (closed) throw new ChainError('unavailable', 'embedded chain is closed');
    const bytes = new Uint8Array(Buffer.from(transactionBase64, 'base64'));
    const out = ledger.execute(bytes);
    const { record } = out;
    if (record.err !== null) {
      const err = record.err as TransactionErrorJson;
      const named = nameError(err, programId, parseWireTransaction(record.bytes));
      throw new ChainError('rejected', `transaction failed on chain: ${named.name}`, {
        signature: record.signature,
        txError: err,
        logs: record.logs,
        ...(named.htlcError ? { htlcError: named.htlcError } : {}),
      });
    }
    return record.signature;
  }

  const signatureState = async (signature: string) => stateOf(ledger.transaction(signature), programId);

  const chain: EmbeddedChain = {
    kind: 'embedded',
    programId,
    makerWallet: maker.publicKey,
    ledger,
    pyth,

    now: async () => ledger.tick().unix,
    blockHeight: async () => ledger.slot(),
    latestBlockhash: async () => {
      const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash();
      return { blockhash, lastValidBlockHeight };
    },

    ...builders,
    signMakerInstructions: (a) =>
      signMakerInstructions(
        {
          maker,
          lifetime: async () => ledger.latestBlockhash(),
          lookupTables: async (addresses) => addresses.map((address) => lookupTable(ledger, address)),
        },
        a,
      ),

    submitSigned: async (transactionBase64) => ({ signature: execute(transactionBase64) }),
    send: async (tx) => {
      execute(tx.transactionBase64);
    },
    signatureState,
    confirm: (signature, commitment, timeoutMs) =>
      pollSignature(() => signatureState(signature), commitment, timeoutMs, 20),
    land: async (tx, commitment, timeoutMs): Promise<LandResult> => {
      try {
        execute(tx.transactionBase64);
      } catch (e) {
        if (e instanceof ChainError && e.code === 'blockhash_expired') {
          const known = await signatureState(tx.signature);
          return known.status === 'unknown' ? { status: 'expired' } : known;
        }
        // A failed execution is on chain: report it as a state, like a cluster would.
        if (!(e instanceof ChainError && e.code === 'rejected' && ledger.transaction(tx.signature))) throw e;
      }
      return chain.confirm(tx.signature, commitment, timeoutMs);
    },

    readEscrow: async (address) => escrowFromAccount(programId, ledger.getAccount(address)),
    readEscrows: async (addresses) =>
      addresses.map((a) => escrowFromAccount(programId, ledger.getAccount(a))),
    readEscrowsAndClock: async (addresses) => {
      const { slot, unix } = ledger.tick();
      const escrows = addresses.map((a) => escrowFromAccount(programId, ledger.getAccount(a)));
      return { escrows, now: unix, slot };
    },
    readPriceUpdates: async (accounts) => {
      const { slot, unix } = ledger.tick();
      const updates = accounts.map((a) => priceUpdateFromAccount(ledger.getAccount(a)));
      return { updates, clockUnix: Number(unix), slot };
    },
    watchAccounts: (onChange) => {
      // Every transaction is final when it lands here, so the feed is live until the chain closes.
      const stop = ledger.onWrite((write) => onChange(write.addresses));
      let open = true;
      const feed: AccountFeed = {
        get live() {
          return open && !closed;
        },
        generation: 1,
        close: () => {
          open = false;
          stop();
        },
      };
      return feed;
    },
    signaturesForAddress: async (address, _commitment, limit = 100, before) =>
      ledger.transactionsForAddress(address.toBase58(), limit, before).map((r) => {
        const t = chainTransactionOf(r, programId);
        return { signature: t.signature, slot: t.slot, err: t.err, blockTime: t.blockTime };
      }),
    getTransaction: async (signature) => {
      const r = ledger.transaction(signature);
      return r ? chainTransactionOf(r, programId) : null;
    },
    readMint: async (mint) => {
      const account = ledger.getAccount(mint);
      return account ? classifyMint(account.owner, account.data) : null;
    },
    tokenBalance: async (owner, mint) => ledger.tokenAmount(owner, mint),
    solBalance: async (owner) => ledger.balance(owner),
    health: async () =>
      closed
        ? { ok: false, detail: 'embedded chain closed' }
        : {
            ok: true,
            detail: `embedded litesvm at slot ${ledger.slot()}, ${ledger.transactionCount()} transactions`,
          },
    close: async () => {
      if (closed) return;
      closed = true;
      pyth?.stop();
      try {
        await closeExtensions(extensions);
      } finally {
        ledger.close();
      }
    },

    airdrop: async ({ wallet, mint, amount }) => ({ signature: ledger.airdrop(wallet, mint, amount) }),
    advanceClock: async (seconds) => ledger.advanceClock(seconds),
  };
  return chain;
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
