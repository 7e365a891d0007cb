// A maker that lies: the service's public routes (RFQ, settlement, lock, trade, redeem, refund) over a real
// loopback chain (the embedded chain served as Solana JSON-RPC, in this process), answering like the service
// does in every field but one. Its maker-side lies: once the taker's lock lands it reports the maker's lock as
// done while it locks nothing, or locks the wrong amount or mint, too short an expiry, or an escrow whose
// recipient or hashlock is not the taker's. Its lock lies: the unsigned "lock" it hands the wallet is a plain
// transfer of the taker's whole balance, a real lock under a hash the maker knows, twice the quoted amount, an
// added approve or close, a look-alike program, a refund to the maker, an expiry a year away, an extortionate
// priority fee, or a v0 message whose writable account hides in a lookup table; or its quote names a
// look-alike mint. And it can sit on a preimage it was given. It records every request it receives (for the
// check that the preimage never reached it) and would take the taker's escrow with any preimage it is given.
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createApproveInstruction,
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createSyncNativeInstruction,
  createTransferInstruction,
} from '@solana/spl-token';
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Keypair,
  MessageV0,
  PublicKey,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
  VersionedTransaction,
} from '@solana/web3.js';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  DEFAULT_HTLC_PROGRAM_ID,
  lockInstruction,
  makerEscrowAddress,
  takerEscrowAddress,
} from '../../../../src/chain/htlc/index.ts';
import { ESCROW_OFFSETS } from '../../../../src/chain/htlc/layout.ts';
import { ata } from '../../../../src/chain/token.ts';
import { takerLockTransaction, unsignedBase64 } from '../../../../src/chain/transactions.ts';
import { type ChainServer, loopbackDevChain, startChainServer } from '../../../../src/dev-chain/index.ts';
import { USDC_MINT, USDT_MINT } from '../../../../test/support/mints.ts';

/** Lies about the maker's lock, told once the taker's lock landed. */
export const LIES = [
  'no_lock',
  'wrong_amount',
  'wrong_mint',
  'short_expiry',
  'wrong_recipient',
  'wrong_hashlock',
  'other_address',
] as const;

/** Lies in the lock the wallet is asked to sign (and in the quote's mint). */
export const LOCK_LIES = [
  'transfer_instead',
  'known_hash',
  'double_amount',
  'hidden_approve',
  'lookalike_program',
  'refund_to_maker',
  'year_expiry',
  'priority_fee',
  'lookup_table',
  'close_wsol',
  'lookalike_mint',
] as const;

export type Lie = (typeof LIES)[number] | (typeof LOCK_LIES)[number] | 'honest' | 'sit_on_preimage';

export const NATIVE_MINT = new PublicKey('So11111111111111111111111111111111111111112');
/** The look-alike the double's quote calls USDC. */
export const LOOKALIKE_MINT = new PublicKey(createHash('sha256').update('look-alike USDC').digest());

const ASSETS = {
  USDC: { asset: 'USDC', mint: USDC_MINT, decimals: 6 },
  USDT: { asset: 'USDT', mint: USDT_MINT, decimals: 6 },
} as const;

/** The maker's own secret: a lock under its hash is one the maker can redeem at once. */
const MAKER_SECRET = Buffer.alloc(32, 9);
const LOOKALIKE_PROGRAM = new PublicKey(createHash('sha256').update('look-alike HTLC').digest());
const LOOKUP_TABLE = new PublicKey(createHash('sha256').update('lookup table').digest());

/** The lock window and the taker's timelock this maker hands out, in chain seconds. */
export const LOCK_WINDOW_SECONDS = 30;
export const TAKER_TIMELOCK_SECONDS = 150;
const MAKER_TIMELOCK_SECONDS = 100;

interface DoubleTrade {
  tradeId: string;
  quoteId: string;
  taker: PublicKey;
  secretHash: Buffer;
  input: (typeof ASSETS)[keyof typeof ASSETS] & { raw: bigint };
  output: (typeof ASSETS)[keyof typeof ASSETS] & { raw: bigint };
  expiry: bigint;
  lockDeadline: bigint;
  lie: Lie;
  makerLocked: boolean;
  signatures: { kind: string; signature: string }[];
}

export interface Received {
  method: string;
  url: string;
  body: string;
}

export interface DishonestMaker {
  url: string;
  chain: ChainServer;
  maker: Keypair;
  /** Every request the double received, in order. */
  received: Received[];
  /** What the next settlement started will lie about. */
  lie: Lie;
  advanceClock(seconds: number): Promise<void>;
  /** Funds a taker on the chain (its input asset plus SOL for fees). */
  fund(wallet: string, mint: string, raw: bigint): void;
  /** Wraps SOL into the taker's wrapped-SOL account (the maker pays). */
  wrap(wallet: string, lamports: bigint): void;
  /** The preimages the double was handed (POST /redeem), by trade. */
  preimages: Map<string, string>;
  close(): Promise<void>;
}

const amountView = (a: { asset: string; mint: string; decimals: number }, raw: bigint) => ({
  asset: a.asset,
  amount: (Number(raw) / 10 ** a.decimals).toFixed(a.decimals),
  amount_raw: raw.toString(),
  decimals: a.decimals,
  mint: a.mint,
});

export interface DishonestMakerOptions {
  /**
   * More routes on the double's server, registered before it listens, given its chain and its maker: the swap
   * page's browser tests serve the page from the double (and a dev RPC over the double's chain) this way.
   */
  routes?: (app: FastifyInstance, double: { chain: ChainServer; maker: Keypair }) => Promise<void>;
}

export async function startDishonestMaker(options: DishonestMakerOptions = {}): Promise<DishonestMaker> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rfq-dishonest-'));
  const maker = Keypair.generate();
  const chain = await startChainServer({
    dataDir,
    port: 0,
    mints: Object.values(ASSETS).map((a) => ({
      address: new PublicKey(a.mint),
      decimals: a.decimals,
      symbol: a.asset,
    })),
    funding: [
      {
        owner: maker.publicKey,
        lamports: 100n * 1_000_000_000n,
        tokens: Object.values(ASSETS).map((a) => ({
          mint: new PublicKey(a.mint),
          amount: 1_000_000_000_000n,
        })),
      },
    ],
  });
  const { ledger } = chain;
  const programId = DEFAULT_HTLC_PROGRAM_ID;
  const quotes = new Map<
    string,
    { input: keyof typeof ASSETS; output: keyof typeof ASSETS; raw: bigint; taker: string }
  >();
  const trades = new Map<string, DoubleTrade>();
  const received: Received[] = [];
  const preimages = new Map<string, string>();
  const app: FastifyInstance = Fastify();
  const state = { lie: 'no_lock' as Lie };

  app.addHook('onRequest', async (request) => {
    received.push({ method: request.method, url: request.url, body: '' });
  });
  app.addHook('preHandler', async (request) => {
    const last = received[received.length - 1];
    if (last && request.body !== undefined) last.body = JSON.stringify(request.body);
  });

  const escrows = (trade: DoubleTrade) => {
    const [takerEscrow] = takerEscrowAddress(programId, trade.taker, trade.secretHash);
    const [makerEscrow] = makerEscrowAddress(programId, takerEscrow);
    return { takerEscrow, makerEscrow };
  };

  const view = (trade: DoubleTrade) => {
    const { takerEscrow, makerEscrow } = escrows(trade);
    const locked = trade.signatures.some((s) => s.kind === 'taker_lock');
    return {
      trade_id: trade.tradeId,
      quote_id: trade.quoteId,
      run_id: randomUUID(),
      current_run: true,
      taker_wallet: trade.taker.toBase58(),
      expires_at: new Date(Number(trade.expiry) * 1000).toISOString(),
      created_at: new Date().toISOString(),
      settlement_status: locked ? 'initiated' : 'pending',
      // The lie: the maker's lock reported as done, whatever the chain shows.
      substate: locked ? 'initiated.makerLocked' : 'pending.awaitingLock',
      failure_reason: null,
      tx_signatures: trade.signatures.map((s) => s.signature),
      tx_signature_kinds: trade.signatures,
      input: amountView(trade.input, trade.input.raw),
      output: amountView(trade.output, trade.output.raw),
      lock_deadline: new Date(Number(trade.lockDeadline) * 1000).toISOString(),
      maker_expires_at: new Date(Number(trade.expiry - 50n) * 1000).toISOString(),
      redeem_by: new Date(Number(trade.expiry - 60n) * 1000).toISOString(),
      program_id: programId.toBase58(),
      taker_escrow: takerEscrow.toBase58(),
      maker_escrow:
        trade.lie === 'other_address' ? Keypair.generate().publicKey.toBase58() : makerEscrow.toBase58(),
      integration_status: 'runtime_orchestrated',
      next_action: locked
        ? { type: 'redeem', method: 'POST', path: `/v1/trades/${trade.tradeId}/redeem` }
        : { type: 'submit_lock', method: 'POST', path: `/v1/trades/${trade.tradeId}/lock` },
    };
  };

  const send = (tx: Transaction) => {
    const outcome = ledger.execute(new Uint8Array(tx.serialize()));
    if (outcome.record.err !== null)
      throw new Error(`the double's transaction failed: ${JSON.stringify(outcome.record.err)}`);
    return outcome.record.signature;
  };

  /** The maker's side of the lie, once the taker's lock is on chain. */
  function makerLock(trade: DoubleTrade): void {
    const now = ledger.unixTime();
    const { takerEscrow, makerEscrow } = escrows(trade);
    const honest = {
      mint: new PublicKey(trade.output.mint),
      amount: trade.output.raw,
      expiry: now + BigInt(MAKER_TIMELOCK_SECONDS),
    };
    if (trade.lie === 'no_lock' || trade.lie === 'other_address') return;
    // Every other lie is told elsewhere (in the lock, the quote, or after a reveal): the maker locks honestly.
    if (trade.lie === 'wrong_amount') honest.amount -= 1n;
    if (trade.lie === 'wrong_mint') honest.mint = new PublicKey(trade.input.mint);
    if (trade.lie === 'short_expiry') honest.expiry = now + 10n;
    const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash();
    const tx = new Transaction({ feePayer: maker.publicKey, blockhash, lastValidBlockHeight }).add(
      lockInstruction({
        programId,
        initializer: maker.publicKey,
        recipient: trade.taker,
        mint: honest.mint,
        initializerTokenAccount: ata(maker.publicKey, honest.mint),
        hashlock: trade.secretHash,
        amount: honest.amount,
        expiry: honest.expiry,
        lockDeadline: now + 5n,
        takerEscrow: {
          address: takerEscrow,
          amount: trade.input.raw,
          mint: new PublicKey(trade.input.mint),
          expiry: trade.expiry,
        },
      }),
    );
    tx.sign(maker);
    trade.signatures.push({ kind: 'maker_lock', signature: send(tx) });
    // The program refuses a maker lock that pays another recipient or carries another hashlock, so those
    // lies are written over the real lock's account: an escrow no honest program would have written.
    if (trade.lie === 'wrong_recipient' || trade.lie === 'wrong_hashlock') {
      const account = ledger.getAccount(makerEscrow);
      if (!account) throw new Error('the maker escrow vanished');
      const data = new Uint8Array(account.data);
      const offset = trade.lie === 'wrong_recipient' ? ESCROW_OFFSETS.recipient : ESCROW_OFFSETS.hashlock;
      data.set(Keypair.generate().publicKey.toBytes(), offset);
      ledger.placeAccount(makerEscrow, programId, data);
    }
    trade.makerLocked = true;
  }

  /** The unsigned lock the wallet is handed: the service's, or the lie. */
  function lockFor(
    trade: DoubleTrade,
    lifetime: { blockhash: string; lastValidBlockHeight: number },
  ): string {
    const inputMint = new PublicKey(trade.input.mint);
    const terms = {
      taker: trade.taker,
      inputMint,
      outputMint: new PublicKey(trade.output.mint),
      amount: trade.input.raw,
      hashlock: trade.secretHash,
      expiry: trade.expiry,
      lockDeadline: trade.lockDeadline,
    };
    const honest = () => takerLockTransaction(programId, maker.publicKey, lifetime, terms);
    const source = ata(trade.taker, inputMint);
    const withExtra = (...extra: TransactionInstruction[]) => unsignedBase64(honest().add(...extra));
    const lockOf = (a: Partial<Parameters<typeof lockInstruction>[0]>) =>
      lockInstruction({
        programId,
        initializer: trade.taker,
        recipient: maker.publicKey,
        mint: inputMint,
        initializerTokenAccount: source,
        hashlock: trade.secretHash,
        amount: trade.input.raw,
        expiry: trade.expiry,
        lockDeadline: trade.lockDeadline,
        ...a,
      });
    const tx = (...ixs: TransactionInstruction[]) =>
      unsignedBase64(new Transaction({ feePayer: trade.taker, ...lifetime }).add(...ixs));
    switch (trade.lie) {
      case 'transfer_instead':
        // The whole balance to the maker, where the lock should be.
        return tx(
          createTransferInstruction(
            source,
            ata(maker.publicKey, inputMint),
            trade.taker,
            ledger.tokenAmount(trade.taker, inputMint),
          ),
        );
      case 'known_hash':
        // A real lock, under a hash whose preimage the maker holds: it could redeem at once.
        return tx(lockOf({ hashlock: createHash('sha256').update(MAKER_SECRET).digest() }));
      case 'double_amount':
        return tx(lockOf({ amount: 2n * trade.input.raw }));
      case 'hidden_approve':
        return withExtra(createApproveInstruction(source, maker.publicKey, trade.taker, 2n ** 64n - 1n));
      case 'lookalike_program':
        return tx(lockOf({ programId: LOOKALIKE_PROGRAM }));
      case 'refund_to_maker':
        // The maker as initializer: a refund (and the escrow's rent) would go to it, the funds from the taker.
        return tx(lockOf({ initializer: maker.publicKey }));
      case 'year_expiry':
        return tx(lockOf({ expiry: trade.expiry + 365n * 86_400n }));
      case 'priority_fee':
        // 0.5 SOL on top: 2,500,000,000 micro-lamports a unit over 200,000 units.
        return unsignedBase64(
          new Transaction({ feePayer: trade.taker, ...lifetime }).add(
            ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }),
            ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 2_500_000_000n }),
            ...honest().instructions,
          ),
        );
      case 'lookup_table': {
        // v0, the taker's token account (writable) loaded through a lookup table the bytes do not spell out.
        const table = new AddressLookupTableAccount({
          key: LOOKUP_TABLE,
          state: {
            deactivationSlot: 2n ** 64n - 1n,
            lastExtendedSlot: 0,
            lastExtendedSlotStartIndex: 0,
            addresses: [source],
          },
        });
        const message = MessageV0.compile({
          payerKey: trade.taker,
          recentBlockhash: lifetime.blockhash,
          instructions: honest().instructions,
          addressLookupTableAccounts: [table],
        });
        return Buffer.from(new VersionedTransaction(message).serialize()).toString('base64');
      }
      case 'close_wsol':
        // The taker's wrapped SOL closed into the maker's wallet along with the lock.
        return withExtra(
          createCloseAccountInstruction(ata(trade.taker, NATIVE_MINT), maker.publicKey, trade.taker),
        );
      default:
        return unsignedBase64(honest());
    }
  }

  app.post('/v1/rfq', async (request) => {
    const body = request.body as {
      input_asset: keyof typeof ASSETS;
      output_asset: keyof typeof ASSETS;
      amount: string;
      taker_wallet: string;
    };
    const input = ASSETS[body.input_asset];
    const output = ASSETS[body.output_asset];
    const raw = BigInt(Math.round(Number(body.amount) * 10 ** input.decimals));
    const quoteId = randomUUID();
    quotes.set(quoteId, {
      input: body.input_asset,
      output: body.output_asset,
      raw,
      taker: body.taker_wallet,
    });
    return {
      status: 'accepted',
      quote_id: quoteId,
      quoted_output_amount_raw: Number(raw),
      spread_bps: 10,
      expires_at: new Date(Date.now() + 30_000).toISOString(),
      htlc_terms: {
        settlement_model: 'solana_htlc',
        escrow_mint: input.mint,
        expires_at: new Date(Date.now() + 180_000).toISOString(),
        hashlock: null,
      },
      risk_checks: [],
      integration_status: 'runtime_orchestrated',
      pair: { input_asset: input.asset, output_asset: output.asset },
      input:
        state.lie === 'lookalike_mint'
          ? { ...amountView(input, raw), mint: LOOKALIKE_MINT.toBase58() }
          : amountView(input, raw),
      output: amountView(output, raw),
      next_action: {
        type: 'start_wallet_settlement',
        method: 'POST',
        path: `/v1/quotes/${quoteId}/wallet-settlement`,
      },
      prices: { input: null, output: null },
    };
  });

  app.post('/v1/quotes/:quoteId/wallet-settlement', async (request, reply) => {
    const { quoteId } = request.params as { quoteId: string };
    const { taker_wallet, secret_hash } = request.body as { taker_wallet: string; secret_hash: string };
    const quote = quotes.get(quoteId);
    if (!quote)
      return reply.code(404).send({ error: { code: 'quote_not_found', message: 'no quote', details: [] } });
    const existing = [...trades.values()].find((t) => t.quoteId === quoteId);
    const now = ledger.unixTime();
    const trade: DoubleTrade = existing ?? {
      tradeId: randomUUID(),
      quoteId,
      taker: new PublicKey(taker_wallet),
      secretHash: Buffer.from(secret_hash, 'hex'),
      input: { ...ASSETS[quote.input], raw: quote.raw },
      output: { ...ASSETS[quote.output], raw: quote.raw },
      expiry: now + BigInt(TAKER_TIMELOCK_SECONDS),
      lockDeadline: now + BigInt(LOCK_WINDOW_SECONDS),
      lie: state.lie,
      makerLocked: false,
      signatures: [],
    };
    trades.set(trade.tradeId, trade);
    const lifetime = ledger.latestBlockhash();
    const { makerEscrow, takerEscrow } = escrows(trade);
    return reply.code(existing ? 200 : 201).send({
      quote_id: quoteId,
      trade_id: trade.tradeId,
      taker_lock_transaction: {
        transaction_base64: lockFor(trade, lifetime),
        recent_blockhash: lifetime.blockhash,
        last_valid_block_height: lifetime.lastValidBlockHeight,
      },
      expires_at: new Date(Number(trade.expiry) * 1000).toISOString(),
      lock_deadline: new Date(Number(trade.lockDeadline) * 1000).toISOString(),
      redeem_by: null,
      program_id: programId.toBase58(),
      taker_escrow: takerEscrow.toBase58(),
      maker_escrow: makerEscrow.toBase58(),
      integration_status: 'runtime_orchestrated',
      next_action: { type: 'submit_lock', method: 'POST', path: `/v1/trades/${trade.tradeId}/lock` },
    });
  });

  const known = (request: { params: unknown }) => trades.get((request.params as { tradeId: string }).tradeId);

  app.post('/v1/trades/:tradeId/lock', async (request, reply) => {
    const trade = known(request);
    if (!trade)
      return reply.code(404).send({ error: { code: 'trade_not_found', message: 'no trade', details: [] } });
    const { transaction_base64 } = request.body as { transaction_base64: string };
    const tx = Transaction.from(Buffer.from(transaction_base64, 'base64'));
    trade.signatures.push({ kind: 'taker_lock', signature: send(tx) });
    makerLock(trade);
    return reply.code(202).send(view(trade));
  });

  app.get('/v1/trades/:tradeId', async (request, reply) => {
    const trade = known(request);
    if (!trade)
      return reply.code(404).send({ error: { code: 'trade_not_found', message: 'no trade', details: [] } });
    return view(trade);
  });

  // What it does with a preimage: keeps it, and redeems nothing for the taker (its own escrow it could
  // refund after its expiry, and then take the taker's with the secret).
  app.post('/v1/trades/:tradeId/redeem', async (request, reply) => {
    const trade = known(request);
    if (!trade)
      return reply.code(404).send({ error: { code: 'trade_not_found', message: 'no trade', details: [] } });
    preimages.set(trade.tradeId, (request.body as { preimage: string }).preimage);
    return reply.code(202).send(view(trade));
  });

  app.post('/v1/trades/:tradeId/refund', async (_request, reply) =>
    reply.code(409).send({ error: { code: 'not_refundable', message: 'never', details: [] } }),
  );

  await options.routes?.(app, { chain, maker });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const dev = loopbackDevChain(chain.url);
  return {
    url: address,
    chain,
    maker,
    received,
    get lie() {
      return state.lie;
    },
    set lie(lie: Lie) {
      state.lie = lie;
    },
    advanceClock: (seconds) => dev.advanceClock(seconds),
    fund: (wallet, mint, raw) => {
      ledger.airdrop(new PublicKey(wallet), new PublicKey(mint), raw);
    },
    wrap: (wallet, lamports) => {
      const owner = new PublicKey(wallet);
      const wrapped = ata(owner, NATIVE_MINT);
      const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash();
      const tx = new Transaction({ feePayer: maker.publicKey, blockhash, lastValidBlockHeight }).add(
        createAssociatedTokenAccountIdempotentInstruction(maker.publicKey, wrapped, owner, NATIVE_MINT),
        SystemProgram.transfer({ fromPubkey: maker.publicKey, toPubkey: wrapped, lamports }),
        createSyncNativeInstruction(wrapped),
      );
      tx.sign(maker);
      send(tx);
    },
    preimages,
    close: async () => {
      await app.close();
      await chain.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Whether `preimage` (hex) appears in any transaction the chain holds for these addresses, or any account. */
export function onChain(chain: ChainServer, preimageHex: string, addresses: string[]): boolean {
  const needle = Buffer.from(preimageHex, 'hex');
  for (const address of addresses) {
    for (const record of chain.ledger.transactionsForAddress(address, 1000)) {
      if (Buffer.from(record.bytes).includes(needle)) return true;
    }
    const account = chain.ledger.getAccount(address);
    if (account && Buffer.from(account.data).includes(needle)) return true;
  }
  return false;
}

export const sha256Hex = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
