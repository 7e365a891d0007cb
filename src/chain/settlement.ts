// The build*/sign* half of the chain port, shared by both chains: pick the transaction, stamp a fresh
// blockhash, and (maker side) sign with the maker key via node:crypto. Nothing here sends.

import type { PublicKey } from '@solana/web3.js';
import type { ChainPort, SignedMakerTransaction, UnsignedTransaction } from './port.ts';
import { type FastSigner, signWith } from './signer.ts';
import {
  type Lifetime,
  type MakerContext,
  makerCancelTransaction,
  makerCloseTransaction,
  makerLockTransaction,
  makerRedeemTransaction,
  makerRefundTransaction,
  type PriorityFee,
  redeemForTransaction,
  refundForTransaction,
  takerLockTransaction,
  takerRedeemTransaction,
  takerRefundTransaction,
  unsignedBase64,
} from './transactions.ts';

export type SettlementBuilders = Pick<
  ChainPort,
  | 'buildTakerLock'
  | 'buildTakerRedeem'
  | 'buildTakerRefund'
  | 'signMakerLock'
  | 'signMakerRedeem'
  | 'signMakerRefund'
  | 'signMakerCancel'
  | 'signRedeemFor'
  | 'signRefundFor'
  | 'signClose'
>;

export function settlementBuilders(d: {
  programId: PublicKey;
  maker: FastSigner;
  priorityFee?: PriorityFee;
  lifetime: () => Promise<Lifetime>;
}): SettlementBuilders {
  const { programId } = d;
  const makerWallet = d.maker.publicKey;

  const unsigned = async (
    build: (l: Lifetime) => Parameters<typeof unsignedBase64>[0],
  ): Promise<UnsignedTransaction> => {
    const lifetime = await d.lifetime();
    return {
      transactionBase64: unsignedBase64(build(lifetime)),
      recentBlockhash: lifetime.blockhash,
      lastValidBlockHeight: lifetime.lastValidBlockHeight,
    };
  };
  const signed = async (
    build: (c: MakerContext) => Parameters<typeof signWith>[0],
  ): Promise<SignedMakerTransaction> => {
    const lifetime = await d.lifetime();
    const ctx: MakerContext = { programId, maker: makerWallet, lifetime };
    if (d.priorityFee) ctx.priorityFee = d.priorityFee;
    const { bytes, signature } = signWith(build(ctx), d.maker);
    return {
      signature,
      transactionBase64: bytes.toString('base64'),
      lastValidBlockHeight: lifetime.lastValidBlockHeight,
    };
  };

  return {
    buildTakerLock: (a) => unsigned((l) => takerLockTransaction(programId, makerWallet, l, a)),
    buildTakerRedeem: (a) => unsigned((l) => takerRedeemTransaction(programId, l, a)),
    buildTakerRefund: (a) => unsigned((l) => takerRefundTransaction(programId, l, a)),
    signMakerLock: (a) => signed((c) => makerLockTransaction(c, a)),
    signMakerRedeem: (a) => signed((c) => makerRedeemTransaction(c, a)),
    signMakerRefund: (a) => signed((c) => makerRefundTransaction(c, a)),
    signMakerCancel: (a) => signed((c) => makerCancelTransaction(c, a)),
    signRedeemFor: (a) => signed((c) => redeemForTransaction(c, a)),
    signRefundFor: (a) => signed((c) => refundForTransaction(c, a)),
    signClose: (a) => signed((c) => makerCloseTransaction(c, a)),
  };
}
