// A trade's Gateway transfer as its transitions move it: the record the store keeps (store/transfers.ts),
// derived from the change of the trade's context — an attestation stored makes it attested, a final
// gatewayMint minted — so that it rides in the transition's own write and commits with it (host.ts).
import type { TradeContext } from '../../machines/index.ts';
import type { TransferRecord } from '../store/index.ts';
import { storedBurnIntent } from './minting.ts';

type MintingContext = Pick<TradeContext, 'tradeId' | 'mintIntent' | 'signatures'>;

const mintSignatureOf = (context: Pick<TradeContext, 'signatures'>) =>
  context.signatures.find((s) => s.kind === 'gateway_mint')?.signature ?? null;

/**
 * The transfer a transition moved from `before` (null: the trade as it was activated, unknown) to `after`,
 * at `at`: none when it stored no attestation and saw no mint. The store keeps the first attestation's and
 * mint's times, and never moves a transfer back.
 */
export function transferMoved(
  before: MintingContext | null,
  after: MintingContext,
  at: string,
): TransferRecord | null {
  const intent = after.mintIntent;
  const attestation = intent?.attestation;
  if (!intent || !attestation) return null;
  const mintSignature = mintSignatureOf(after);
  const attested = before?.mintIntent?.attestation !== attestation;
  const minted = mintSignature !== null && (before === null || mintSignatureOf(before) === null);
  if (!attested && !minted) return null;
  const { burnIntent } = storedBurnIntent(intent);
  return {
    transferId: intent.transferSpecHash,
    gatewayTransferId: attestation.transferId,
    tradeId: after.tradeId,
    purpose: 'trade_mint',
    sourceDomain: burnIntent.spec.sourceDomain,
    valueRaw: BigInt(intent.valueRaw),
    maxFeeRaw: burnIntent.maxFee,
    feeRaw: BigInt(attestation.feeRaw),
    status: mintSignature === null ? 'attested' : 'minted',
    mintSignature,
    burnTx: null,
    attestedAt: at,
    mintedAt: mintSignature === null ? null : at,
    burnedAt: null,
    expiredAt: null,
  };
}
