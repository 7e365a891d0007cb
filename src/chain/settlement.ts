// The build*/sign* half of the chain port, shared by both chains: pick the transaction, stamp a fresh
// blockhash, and (maker side) sign with the maker key via node:crypto. Nothing here sends.

import type { PublicKey } from '@solana/web3.js';
import type { ChainPort, SignedMakerTransaction, UnsignedTransaction } from './port.ts';
import { type PriorityFeePolicy, priorityFeeFor, type SignOptions } from './priority.ts';
import { type FastSigner, signWith } from './signer.ts';
import {
  type Lifetime,
  type MakerContext,
  makerCancelTransaction,
  makerCloseTransaction,
  makerLockTransaction,
  makerRedeemTransaction,
  makerRefundTransaction,
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
  /** Maker transactions pay a priority fee that rises as their deadline nears (none: no fee). */
  priorityFee?: PriorityFeePolicy;
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
    options: SignOptions = {},
  ): Promise<SignedMakerTransaction> => {
    const lifetime = await d.lifetime();
    const ctx: MakerContext = { programId, maker: makerWallet, lifetime };
    if (d.priorityFee) {
      ctx.priorityFee = {
        microLamports: priorityFeeFor(d.priorityFee, options.secondsLeft),
        unitLimit: d.priorityFee.unitLimit,
      };
    }
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
    signMakerLock: (a, o) => signed((c) => makerLockTransaction(c, a), o),
    signMakerRedeem: (a, o) => signed((c) => makerRedeemTransaction(c, a), o),
    signMakerRefund: (a, o) => signed((c) => makerRefundTransaction(c, a), o),
    signMakerCancel: (a, o) => signed((c) => makerCancelTransaction(c, a), o),
    signRedeemFor: (a, o) => signed((c) => redeemForTransaction(c, a), o),
    signRefundFor: (a, o) => signed((c) => refundForTransaction(c, a), o),
    signClose: (a, o) => signed((c) => makerCloseTransaction(c, a), o),
  };
}
