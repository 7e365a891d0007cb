// A taker's own way to the chain, as its wallet has one: straight to the chain, or through the same faults
// the service meets. It reads escrows and the clock, and sends its own transactions (its lock, its redeem of
// the maker escrow, its refund) the way wallets do: with preflight, again every 1.5 s until they land or
// their blockhash is past.
import { createAssociatedTokenAccountIdempotentInstruction } from '@solana/spl-token';
import {
  Connection,
  type Keypair,
  type PublicKey,
  SendTransactionError,
  SYSVAR_CLOCK_PUBKEY,
  Transaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { escrowFromAccount } from '../../src/chain/common.ts';
import { type EscrowState, redeemInstruction, refundInstruction } from '../../src/chain/htlc/index.ts';
import { ata } from '../../src/chain/token.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type SendResult =
  | { landed: true; signature: string; err: unknown }
  | { landed: false; signature: string; why: 'expired' | 'refused' | 'gave_up'; detail: string };

export class ChainAccess {
  readonly connection: Connection;

  constructor(
    url: string,
    wsUrl: string,
    readonly programId: PublicKey,
    /** `direct` or `faulty`: how the report names it. */
    readonly path: 'direct' | 'faulty',
  ) {
    // No 429 retries inside web3.js (they print to the console): this wallet retries itself.
    this.connection = new Connection(url, {
      commitment: 'confirmed',
      wsEndpoint: wsUrl,
      disableRetryOnRateLimit: true,
    });
  }

  /** `call` until it answers (a faulty path fails often), for up to patienceMs. */
  async retry<T>(call: () => Promise<T>, patienceMs = 60_000): Promise<T> {
    const deadline = Date.now() + patienceMs;
    for (;;) {
      try {
        return await call();
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(300);
      }
    }
  }

  /** The chain's clock (unix seconds) and slot, from the Clock sysvar. */
  async clock(): Promise<{ unix: number; slot: number }> {
    const info = await this.retry(() => this.connection.getAccountInfo(SYSVAR_CLOCK_PUBKEY));
    if (!info) throw new Error('no Clock sysvar');
    return { slot: Number(info.data.readBigUInt64LE(0)), unix: Number(info.data.readBigInt64LE(32)) };
  }

  async escrow(address: PublicKey): Promise<EscrowState | null> {
    const info = await this.retry(() => this.connection.getAccountInfo(address));
    return escrowFromAccount(this.programId, info ? { owner: info.owner.toBase58(), data: info.data } : null);
  }

  /** Signs and sends the instructions (fee payer: the wallet) until they land or cannot. */
  async submit(wallet: Keypair, instructions: TransactionInstruction[]): Promise<SendResult> {
    const { blockhash, lastValidBlockHeight } = await this.retry(() => this.connection.getLatestBlockhash());
    const tx = new Transaction({ feePayer: wallet.publicKey, blockhash, lastValidBlockHeight }).add(
      ...instructions,
    );
    tx.sign(wallet);
    return this.sendUntilLanded(tx.serialize(), lastValidBlockHeight);
  }

  /** Signed bytes, again every 1.5 s, until they land, their blockhash is past, or a preflight refuses them. */
  async sendUntilLanded(
    bytes: Buffer,
    lastValidBlockHeight: number,
    patienceMs = 120_000,
  ): Promise<SendResult> {
    const signature = bs58.encode(Transaction.from(bytes).signature ?? new Uint8Array(64));
    const deadline = Date.now() + patienceMs;
    for (;;) {
      try {
        await this.connection.sendRawTransaction(bytes, { maxRetries: 0, preflightCommitment: 'confirmed' });
      } catch (error) {
        if (error instanceof SendTransactionError) {
          const message = error.transactionError?.message ?? error.message;
          if (!/already been processed|Blockhash not found/i.test(message)) {
            // The chain said no (the escrow already settled, a window closed): it will not land, ever.
            const status = await this.status(signature);
            if (status) return { landed: true, signature, err: status.err };
            return { landed: false, signature, why: 'refused', detail: message.slice(0, 300) };
          }
        }
        // Otherwise a lost answer, a reset, a 429/503: the next round tells.
      }
      await sleep(1_500);
      const status = await this.status(signature);
      if (status) return { landed: true, signature, err: status.err };
      const height = await this.connection.getBlockHeight().catch(() => null);
      if (height !== null && height > lastValidBlockHeight) {
        const last = await this.status(signature);
        if (last) return { landed: true, signature, err: last.err };
        return { landed: false, signature, why: 'expired', detail: `blockhash past (height ${height})` };
      }
      if (Date.now() > deadline) {
        return { landed: false, signature, why: 'gave_up', detail: 'no answer in time' };
      }
    }
  }

  private async status(signature: string) {
    try {
      const { value } = await this.connection.getSignatureStatuses([signature], {
        searchTransactionHistory: true,
      });
      return value[0] ?? null;
    } catch {
      return null;
    }
  }
}

/** The taker redeems the maker escrow with its preimage (paid to its own output token account). */
export function redeemMakerEscrow(
  programId: PublicKey,
  taker: PublicKey,
  makerEscrow: PublicKey,
  outputMint: PublicKey,
  preimage: Uint8Array,
): TransactionInstruction[] {
  const to = ata(taker, outputMint);
  return [
    createAssociatedTokenAccountIdempotentInstruction(taker, to, taker, outputMint),
    redeemInstruction({ programId, escrow: makerEscrow, recipientTokenAccount: to, preimage }),
  ];
}

/** The taker refunds its own expired escrow (anyone may; the funds go back to the taker). */
export function refundTakerEscrow(
  programId: PublicKey,
  taker: PublicKey,
  takerEscrow: PublicKey,
  inputMint: PublicKey,
): TransactionInstruction[] {
  const to = ata(taker, inputMint);
  return [
    createAssociatedTokenAccountIdempotentInstruction(taker, to, taker, inputMint),
    refundInstruction({ programId, escrow: takerEscrow, initializerTokenAccount: to }),
  ];
}
