// The taker's own view of the chain: a Solana JSON-RPC endpoint the front end chooses (its wallet's cluster
// RPC, a provider of its own; on the embedded chain the service's dev RPC), through @solana/kit's RPC client.
// Everything the client checks before revealing is read here, never taken from the service's word.
import {
  type Address,
  address,
  type Base64EncodedWireTransaction,
  type Commitment,
  createSolanaRpc,
  type Signature,
  signature as toSignature,
} from '@solana/kit';
import { fromBase64 } from './bytes.ts';
import { RpcCallError, TransactionFailedError } from './errors.ts';
import { CLOCK_SYSVAR, decodeClock } from './htlc.ts';

export interface AccountView {
  address: string;
  owner: string;
  lamports: bigint;
  data: Uint8Array;
}

export interface ChainRead {
  /** The accounts asked for, in order; null where none exists. */
  accounts: (AccountView | null)[];
  /** The chain's clock (the Clock sysvar) at the same slot as the accounts. */
  clock: { slot: bigint; unixTimestamp: bigint };
}

export interface TakerRpcOptions {
  /** What a read waits for; 'finalized' (the default) cannot be rolled back under the taker. */
  commitment?: Commitment;
  /** How often a sent transaction's status is asked for. */
  pollMs?: number;
}

/** A transaction simulated on the taker's RPC, with the watched accounts before and after it. */
export interface Simulated {
  err: unknown;
  logs: string[];
  unitsConsumed: bigint | null;
  /** The slot the accounts were read at before the simulation (which runs at it or later). */
  slot: bigint;
  accounts: { address: string; before: AccountView | null; after: AccountView | null }[];
}

export type TakerRpc = ReturnType<typeof takerRpc>;

/** JSON of an RPC answer, whose integers kit hands over as bigints. */
const plain = (_: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);

const wrap = async <T>(method: string, call: () => Promise<T>): Promise<T> => {
  try {
    return await call();
  } catch (error) {
    throw new RpcCallError(method, (error as Error).message, error);
  }
};

export function takerRpc(url: string, options: TakerRpcOptions = {}) {
  const rpc = createSolanaRpc(url);
  const commitment = options.commitment ?? 'finalized';
  const pollMs = options.pollMs ?? 500;
  const order: Commitment[] = ['processed', 'confirmed', 'finalized'];
  const reached = (status: Commitment) => order.indexOf(status) >= order.indexOf(commitment);

  /** Accounts and the clock in one call, so they are read at one slot. */
  async function read(addresses: readonly string[]): Promise<ChainRead> {
    const keys: Address[] = [...addresses, CLOCK_SYSVAR].map((a) => address(a));
    const { value } = await wrap('getMultipleAccounts', () =>
      rpc.getMultipleAccounts(keys, { encoding: 'base64', commitment }).send(),
    );
    const views = value.map((account, i): AccountView | null =>
      account
        ? {
            address: keys[i] as string,
            owner: account.owner,
            lamports: BigInt(account.lamports),
            data: fromBase64(account.data[0]),
          }
        : null,
    );
    const clock = views.pop();
    if (!clock) throw new RpcCallError('getMultipleAccounts', 'the Clock sysvar is missing');
    return { accounts: views, clock: decodeClock(clock.data) };
  }

  /** The cluster's genesis hash: which chain this RPC serves (mainnet, devnet, a local one …). */
  async function genesisHash(): Promise<string> {
    return wrap('getGenesisHash', () => rpc.getGenesisHash().send());
  }

  /**
   * Simulates a transaction as it would run now — its blockhash replaced by a recent one, its signatures not
   * checked, so an unsigned one runs — and answers the watched accounts before (read first, at the slot the
   * simulation may not go behind) and after. Reads at 'confirmed' when the client's commitment is 'finalized':
   * a simulation runs on the newest state anyway, and both sides must see the same.
   */
  async function simulate(transactionBase64: string, addresses: readonly string[]): Promise<Simulated> {
    const at: Commitment = commitment === 'finalized' ? 'confirmed' : commitment;
    const keys = addresses.map((a) => address(a));
    const before = await wrap('getMultipleAccounts', () =>
      rpc.getMultipleAccounts(keys, { encoding: 'base64', commitment: at }).send(),
    );
    const { value } = await wrap('simulateTransaction', () =>
      rpc
        .simulateTransaction(transactionBase64 as Base64EncodedWireTransaction, {
          encoding: 'base64',
          sigVerify: false,
          replaceRecentBlockhash: true,
          commitment: at,
          minContextSlot: before.context.slot,
          accounts: { encoding: 'base64', addresses: keys },
        })
        .send(),
    );
    const view = (
      key: string,
      account: { owner: string; lamports: bigint | number; data: readonly [string, string] } | null,
    ): AccountView | null =>
      account
        ? {
            address: key,
            owner: account.owner,
            lamports: BigInt(account.lamports),
            data: fromBase64(account.data[0]),
          }
        : null;
    return {
      err: value.err,
      logs: value.logs ?? [],
      unitsConsumed: value.unitsConsumed ?? null,
      slot: BigInt(before.context.slot),
      accounts: keys.map((key, i) => ({
        address: key,
        before: view(key, before.value[i] ?? null),
        after: view(key, value.accounts?.[i] ?? null),
      })),
    };
  }

  async function latestBlockhash() {
    const { value } = await wrap('getLatestBlockhash', () => rpc.getLatestBlockhash({ commitment }).send());
    return value;
  }

  async function blockHeight(): Promise<bigint> {
    return BigInt(await wrap('getBlockHeight', () => rpc.getBlockHeight({ commitment }).send()));
  }

  /** Sends a signed transaction (base64 wire bytes); answers its signature. */
  async function send(signedBase64: string): Promise<string> {
    return wrap('sendTransaction', () =>
      rpc
        .sendTransaction(signedBase64 as Base64EncodedWireTransaction, {
          encoding: 'base64',
          preflightCommitment: commitment === 'finalized' ? 'confirmed' : commitment,
        })
        .send(),
    );
  }

  /**
   * Waits until the transaction reached the client's commitment, failing if it landed with an error or its
   * blockhash expired first (then it can never land).
   */
  async function confirm(sig: string, lastValidBlockHeight: bigint): Promise<void> {
    for (;;) {
      const { value } = await wrap('getSignatureStatuses', () =>
        rpc.getSignatureStatuses([toSignature(sig) as Signature]).send(),
      );
      const status = value[0];
      if (status?.err)
        throw new TransactionFailedError(sig, `failed on chain: ${JSON.stringify(status.err, plain)}`);
      if (status?.confirmationStatus && reached(status.confirmationStatus)) return;
      if (!status && (await blockHeight()) > lastValidBlockHeight)
        throw new TransactionFailedError(sig, 'did not land before its blockhash expired');
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  /** Whether the transaction landed without error and reached the client's commitment. */
  async function landed(sig: string): Promise<boolean> {
    const { value } = await wrap('getSignatureStatuses', () =>
      rpc.getSignatureStatuses([toSignature(sig) as Signature], { searchTransactionHistory: true }).send(),
    );
    const status = value[0];
    return !!status && !status.err && !!status.confirmationStatus && reached(status.confirmationStatus);
  }

  return {
    url,
    commitment,
    read,
    genesisHash,
    simulate,
    latestBlockhash,
    blockHeight,
    send,
    confirm,
    landed,
  };
}
