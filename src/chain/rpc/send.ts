// Broadcasting over several endpoints: the same bytes go to every endpoint at once (with preflight), and
// the transaction counts as sent when any of them took it. When none did, a refusal that does not depend
// on how far the refusing node got wins (a bad signature; a program error from a current node), then an
// unknown blockhash judged against the chain's height, else the chain was unreachable.

import { type PublicKey, SendTransactionError } from '@solana/web3.js';
import { nameError } from '../common.ts';
import { ChainError, type TransactionErrorJson } from '../errors.ts';
import { signatureOf, type WireTransaction } from '../wire.ts';
import type { Endpoint, Endpoints } from './endpoints.ts';

type Outcome =
  | { kind: 'accepted' }
  /** `stateful`: the refusal comes from the node's view of accounts, which a lagging node has wrong. */
  | { kind: 'refused'; error: ChainError; stateful: boolean }
  | { kind: 'blockhash'; message: string }
  | { kind: 'failed'; message: string };

const PREFLIGHT_CUSTOM = /Error processing Instruction (\d+): custom program error: 0x([0-9a-fA-F]+)/;
/** What validators answer when preflight ran and refused (-32002), or the bytes are not a transaction (-32602). */
const PREFLIGHT_REFUSAL = /Transaction simulation failed|invalid transaction|failed to deserialize/i;

/** A node's refusal, named as the port names it; null for an answer that is not about the transaction. */
function refusalOf(
  e: SendTransactionError,
  wire: WireTransaction,
  programId: PublicKey,
): Exclude<Outcome, { kind: 'failed' }> | null {
  const signature = signatureOf(wire);
  const { message = e.message, logs = [] } = e.transactionError;
  if (/already been processed/i.test(message)) return { kind: 'accepted' };
  if (/signature verification failure/i.test(message)) {
    return {
      kind: 'refused',
      stateful: false,
      error: new ChainError('invalid_signature', 'transaction signature verification failure', { signature }),
    };
  }
  // A lagging node also says this for a fresh blockhash: expired only once the chain is past it.
  if (/Blockhash not found/i.test(message)) return { kind: 'blockhash', message };
  if (/no record of a prior credit|insufficient funds for fee/i.test(message)) {
    return {
      kind: 'refused',
      stateful: true,
      error: new ChainError('insufficient_funds', message, { signature, logs }),
    };
  }
  // Anything else (a node that is behind or unhealthy, a rate limit worded as JSON-RPC) is not a verdict.
  if (!PREFLIGHT_REFUSAL.test(message)) return null;
  const custom = PREFLIGHT_CUSTOM.exec(message);
  const txError: TransactionErrorJson | undefined = custom
    ? { InstructionError: [Number(custom[1]), { Custom: Number.parseInt(custom[2] ?? '0', 16) }] }
    : undefined;
  const named: { name: string | null; htlcError?: string } = txError
    ? nameError(txError, programId, wire)
    : { name: message };
  return {
    kind: 'refused',
    stateful: true,
    error: new ChainError('rejected', `transaction refused: ${named.name}`, {
      signature,
      logs,
      ...(txError ? { txError } : {}),
      ...(named.htlcError ? { htlcError: named.htlcError } : {}),
    }),
  };
}

async function sendTo(
  endpoints: Endpoints,
  endpoint: Endpoint,
  wire: WireTransaction,
  programId: PublicKey,
): Promise<Outcome> {
  try {
    await endpoint.connection.sendRawTransaction(wire.bytes, {
      skipPreflight: false,
      preflightCommitment: 'confirmed',
      maxRetries: 0,
    });
    endpoints.answered(endpoint);
    return { kind: 'accepted' };
  } catch (e) {
    const refusal = e instanceof SendTransactionError ? refusalOf(e, wire, programId) : null;
    if (refusal) {
      endpoints.answered(endpoint);
      return refusal;
    }
    endpoints.failed(endpoint);
    return { kind: 'failed', message: `${endpoint.label}: ${(e as Error).message}` };
  }
}

/** True as soon as one endpoint took the bytes; false once every one has answered otherwise. */
function anyAccepted(outcomes: Promise<Outcome>[]): Promise<boolean> {
  return new Promise((resolve) => {
    let left = outcomes.length;
    for (const outcome of outcomes) {
      void outcome.then((o) => {
        left -= 1;
        if (o.kind === 'accepted') resolve(true);
        else if (left === 0) resolve(false);
      });
    }
  });
}

/**
 * Sends the bytes to every endpoint; resolves once one took them. Throws ChainError `invalid_signature`,
 * `rejected` or `insufficient_funds` (a current node's preflight refused), `blockhash_expired` (the
 * blockhash is unknown and `expired()` proves it past), else `unavailable`.
 */
export async function broadcastToAll(
  endpoints: Endpoints,
  wire: WireTransaction,
  programId: PublicKey,
  expired: () => Promise<boolean>,
): Promise<void> {
  const outcomes = endpoints.list.map((endpoint) => sendTo(endpoints, endpoint, wire, programId));
  // The others keep going in the background: their answers still tell which endpoints are healthy.
  if (await anyAccepted(outcomes)) return;
  const settled = await Promise.all(outcomes);

  const signature = signatureOf(wire);
  const problems: string[] = [];
  for (const [i, outcome] of settled.entries()) {
    const endpoint = endpoints.list[i] as Endpoint;
    if (outcome.kind !== 'refused') continue;
    if (!outcome.stateful || (await endpoints.current(endpoint, 'confirmed', null))) throw outcome.error;
    problems.push(`${endpoint.label} lags: its refusal (${outcome.error.message}) is not believed`);
  }
  const blockhash = settled.find((o) => o.kind === 'blockhash');
  if (blockhash?.kind === 'blockhash') {
    throw new ChainError(
      (await expired()) ? 'blockhash_expired' : 'unavailable',
      `blockhash not found (${blockhash.message})`,
      { signature },
    );
  }
  for (const outcome of settled) if (outcome.kind === 'failed') problems.push(outcome.message);
  const where = endpoints.list.length === 1 ? '' : ` at all ${endpoints.list.length} endpoints`;
  throw new ChainError('unavailable', `sendTransaction failed${where}: ${problems.join('; ')}`, {
    signature,
  });
}
