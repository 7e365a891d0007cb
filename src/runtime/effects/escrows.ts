// The trade's escrows as the settling effects see them: read at finalized, how one ended, the fee of a
// transaction that settled one without this attempt seeing it land, and a maker transaction landed.
import type { EscrowEnding, EscrowTerms } from '../../../machines/index.ts';
import type { ChainPort, Commitment, EscrowState, SignedMakerTransaction } from '../../chain/index.ts';
import { escrowEnding } from '../endings.ts';
import { describe, key, NotYet } from './effect.ts';
import type { EffectHooks } from './hooks.ts';

/** Reads of the trade's escrows on `chain`; `hooks` posts the fees it finds the maker paid. */
export function escrowReads(chain: ChainPort, hooks: Pick<EffectHooks, 'postFee'>) {
  const read = (address: string, commitment: Commitment = 'finalized'): Promise<EscrowState | null> =>
    chain.readEscrow(key(address), commitment);

  /** The escrow's ending as the chain shows it now; throws while it shows none (the effect retries). */
  async function ended(terms: EscrowTerms, state?: EscrowState | null): Promise<EscrowEnding> {
    const current = state === undefined ? await read(terms.address) : state;
    const ending = await escrowEnding(chain, terms, current, 'finalized');
    if (ending === null) {
      throw new NotYet(
        current === null
          ? `escrow ${terms.address} not found and no settlement of it in its history`
          : `escrow ${terms.address} is ${current.status}; its settlement is not visible yet`,
      );
    }
    return ending;
  }

  /**
   * The fee of a transaction that settled the trade's escrow without this attempt seeing it land (an earlier
   * attempt before a crash, say), when the maker paid for it: the ledger must show every fee the maker paid.
   */
  async function postFeeIfMakers(tradeId: string, signature: string): Promise<void> {
    const tx = await chain.getTransaction(signature, 'finalized');
    if (tx !== null && tx.accountKeys[0] === chain.makerWallet.toBase58()) {
      await hooks.postFee(tradeId, signature, tx.fee);
    }
  }

  return { read, ended, postFeeIfMakers };
}

/** Send and land a maker-signed transaction on `chain`, its intent recorded first. */
export function landing(
  chain: Pick<ChainPort, 'land'>,
  hooks: Pick<EffectHooks, 'recordIntent' | 'postFee' | 'landTimeoutMs'>,
) {
  /** Send and land a maker-signed transaction; answers its signature once final and successful. */
  return async function land(tradeId: string, kind: string, tx: SignedMakerTransaction): Promise<string> {
    await hooks.recordIntent(tradeId, kind, tx.signature, tx.lastValidBlockHeight);
    const result = await chain.land(tx, 'finalized', hooks.landTimeoutMs);
    if (result.status === 'finalized') {
      void hooks.postFee(tradeId, tx.signature, result.fee);
      if (result.err === null) return tx.signature;
      throw new Error(`${kind} ${tx.signature} failed on chain: ${result.err}`);
    }
    throw new NotYet(`${kind} ${tx.signature} not final (${describe(result)})`);
  };
}
