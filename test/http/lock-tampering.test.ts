// POST /v1/trades/{id}/lock accepts back only the lock the service built for the trade: a taker's wallet
// signing a "lock" that also approves a stranger, hands over its token account, pays someone, or is the lock
// with one byte changed, is refused with 400 lock_mismatch, and nothing of it reaches the chain — the
// signature is unknown there, the taker's balances and its token account's delegate are as before, and the
// trade and its history have not moved. The lock as built, signed, still settles. Runs on SQLite, and on
// PostgreSQL under TEST_STORE=postgres (npm run test:postgres).
import {
  AccountLayout,
  AuthorityType,
  createApproveCheckedInstruction,
  createApproveInstruction,
  createCloseAccountInstruction,
  createSetAuthorityInstruction,
} from '@solana/spl-token';
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Keypair,
  MessageV0,
  PublicKey,
  SystemProgram,
  Transaction,
  VersionedTransaction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { ata } from '../../src/chain/index.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';
import { startService, TEST_STORE, type TestService } from '../support/service.ts';
import { newSecret, signAsWallet, Taker } from '../support/taker.ts';

const USDC = new PublicKey(USDC_MINT);
const SOL = new PublicKey(SOL_MINT);
/** What the taker holds and what it swaps, in USDC raw units (6 decimals). */
const HOLDS = 50_000_000n;
const SWAPS = '20';

let service: TestService;
beforeAll(async () => {
  service = await startService(undefined, { pollIntervalMs: 50, lockWaitMs: 5_000 });
}, 60_000);
afterAll(async () => service?.dispose());

/** A taker holding 50 USDC (and SOL for fees) with a settlement started for 20 USDC → SOL. */
async function startedTrade() {
  const taker = new Taker(service.app);
  await taker.airdrop('SOL', '2');
  await taker.airdrop('USDC', '50');
  const quote = await taker.quote('USDC', 'SOL', SWAPS);
  const secret = newSecret();
  const settlement = (await taker.settle(quote.quote_id, secret)).json();
  return {
    taker,
    secret,
    quoteId: quote.quote_id as string,
    tradeId: settlement.trade_id as string,
    unsigned: settlement.taker_lock_transaction.transaction_base64 as string,
    programId: new PublicKey(settlement.program_id as string),
  };
}
type Started = Awaited<ReturnType<typeof startedTrade>>;

/** The lock handed out, decoded, edited by `edit` and signed by the taker (and whoever else must sign). */
function tampered(t: Started, edit: (tx: Transaction) => void, coSigners: Keypair[] = []): string {
  const tx = Transaction.from(Buffer.from(t.unsigned, 'base64'));
  edit(tx);
  tx.sign(...coSigners, t.taker.wallet);
  return tx.serialize().toString('base64');
}

/** The HTLC lock instruction of the handed-out lock. */
function lockOf(t: Started, tx: Transaction) {
  const lock = tx.instructions.find((ix) => ix.programId.equals(t.programId));
  if (!lock) throw new Error('no lock instruction');
  return lock;
}

/** The taker's USDC account as the chain holds it (through the embedded chain's JSON-RPC). */
async function usdcAccount(t: Started) {
  const res = await service.app.inject({
    method: 'POST',
    url: '/v1/dev/rpc',
    payload: {
      jsonrpc: '2.0',
      id: 1,
      method: 'getMultipleAccounts',
      params: [[ata(t.taker.wallet.publicKey, USDC).toBase58()], { encoding: 'base64' }],
    },
  });
  const [account] = res.json().result.value;
  const state = AccountLayout.decode(Buffer.from(account.data[0], 'base64'));
  return {
    amount: state.amount,
    owner: state.owner.toBase58(),
    delegate: state.delegateOption === 1 ? state.delegate.toBase58() : null,
    delegatedAmount: state.delegatedAmount,
    closeAuthority: state.closeAuthorityOption === 1 ? state.closeAuthority.toBase58() : null,
  };
}

/** What the chain and the service hold of the taker and its trade: none of it may move on a refusal. */
async function world(t: Started) {
  const record = await service.store.getTrade(t.tradeId);
  return {
    usdc: await usdcAccount(t),
    lamports: await service.chain.solBalance(t.taker.wallet.publicKey),
    outputAccount: await service.chain.tokenBalance(t.taker.wallet.publicKey, SOL).catch(() => null),
    escrow:
      (await service.chain.readEscrow(
        new PublicKey((await t.taker.trade(t.tradeId)).taker_escrow),
        'confirmed',
      )) ?? null,
    status: record?.status,
    events: (await service.store.tradeEvents(t.tradeId)).map((e) => e.type),
  };
}

/** Posts signed bytes as the trade's lock; answers the reply and every transaction the service sent meanwhile. */
async function submit(t: Started, transactionBase64: string) {
  const submitSigned = vi.spyOn(service.chain, 'submitSigned');
  const send = vi.spyOn(service.chain, 'send');
  try {
    const res = await t.taker.post(`/v1/trades/${t.tradeId}/lock`, { transaction_base64: transactionBase64 });
    const sent = [
      ...submitSigned.mock.calls.map(([bytes]) => bytes),
      ...send.mock.calls.map(([tx]) => tx.transactionBase64),
    ];
    return { res, sent };
  } finally {
    submitSigned.mockRestore();
    send.mockRestore();
  }
}

const signatureOf = (transactionBase64: string) =>
  bs58.encode(
    VersionedTransaction.deserialize(Buffer.from(transactionBase64, 'base64')).signatures[0] as Uint8Array,
  );

/** The taker's bytes are refused as lock_mismatch, `why` named in details, and nothing moved anywhere. */
async function expectRefused(t: Started, transactionBase64: string, why: RegExp) {
  const before = await world(t);
  const { res, sent } = await submit(t, transactionBase64);
  expect(res.statusCode, res.body).toBe(400);
  const { error } = res.json();
  expect(error.code).toBe('lock_mismatch');
  expect(error.details).toHaveLength(1);
  expect(error.details[0]).toMatch(/^body\.transaction_base64: /);
  expect(error.details[0]).toMatch(why);
  expect(sent).toEqual([]);
  expect(await service.chain.getTransaction(signatureOf(transactionBase64), 'confirmed')).toBeNull();
  expect(await world(t)).toEqual(before);
  expect((await t.taker.trade(t.tradeId)).substate).toBe('pending.awaitingLock');
}

describe(`a submitted lock that is not the one the service built is refused, and never sent (${TEST_STORE})`, () => {
  test('an added SPL approve of the taker’s USDC to a stranger', async () => {
    const t = await startedTrade();
    const stranger = Keypair.generate().publicKey;
    const account = ata(t.taker.wallet.publicKey, USDC);
    const bytes = tampered(t, (tx) => {
      tx.add(createApproveInstruction(account, stranger, t.taker.wallet.publicKey, HOLDS));
    });
    await expectRefused(t, bytes, /adds instruction 2 \(token approve\)/);
    expect((await usdcAccount(t)).delegate).toBeNull();
  });

  test('an added approveChecked, placed before the lock', async () => {
    const t = await startedTrade();
    const stranger = Keypair.generate().publicKey;
    const account = ata(t.taker.wallet.publicKey, USDC);
    const bytes = tampered(t, (tx) => {
      tx.instructions.unshift(
        createApproveCheckedInstruction(account, USDC, stranger, t.taker.wallet.publicKey, HOLDS, 6),
      );
    });
    await expectRefused(t, bytes, /adds instruction 0 \(token approve checked\)/);
  });

  test('an added setAuthority handing the taker’s USDC account to a stranger', async () => {
    const t = await startedTrade();
    const stranger = Keypair.generate().publicKey;
    const account = ata(t.taker.wallet.publicKey, USDC);
    const bytes = tampered(t, (tx) => {
      tx.add(
        createSetAuthorityInstruction(
          account,
          t.taker.wallet.publicKey,
          AuthorityType.AccountOwner,
          stranger,
        ),
      );
    });
    await expectRefused(t, bytes, /token set authority/);
    expect((await usdcAccount(t)).owner).toBe(t.taker.address);
  });

  test('an added closeAccount of the taker’s token account the lock creates, paid to a stranger', async () => {
    const t = await startedTrade();
    const stranger = Keypair.generate().publicKey;
    const output = ata(t.taker.wallet.publicKey, SOL);
    const bytes = tampered(t, (tx) => {
      tx.add(createCloseAccountInstruction(output, stranger, t.taker.wallet.publicKey));
    });
    await expectRefused(t, bytes, /token close account/);
  });

  test('an added system transfer from the taker to a stranger', async () => {
    const t = await startedTrade();
    const stranger = Keypair.generate().publicKey;
    const bytes = tampered(t, (tx) => {
      tx.add(
        SystemProgram.transfer({ fromPubkey: t.taker.wallet.publicKey, toPubkey: stranger, lamports: 1e9 }),
      );
    });
    await expectRefused(t, bytes, /system transfer/);
  });

  test.each([
    // The lock's data: tag, kind, hashlock (2..33), recipient (34..65), amount (66..73), expiry (74..81), deadline.
    ['its amount', 66, 'data differs from byte 66'],
    ['its hashlock', 2, 'data differs from byte 2'],
    ['its expiry', 80, 'data differs from byte 80'],
  ])('the lock with one byte of %s changed', async (_, at, why) => {
    const t = await startedTrade();
    const bytes = tampered(t, (tx) => {
      const { data } = lockOf(t, tx);
      data[at] = (data[at] as number) ^ 0x01;
    });
    await expectRefused(t, bytes, new RegExp(`changes instruction 1 \\(htlc\\): ${why}`));
  });

  test('the lock with another fee payer (a stranger pays, the taker signs too)', async () => {
    const t = await startedTrade();
    const stranger = new Taker(service.app);
    await stranger.airdrop('SOL', '1');
    const bytes = tampered(
      t,
      (tx) => {
        tx.feePayer = stranger.wallet.publicKey;
      },
      [stranger.wallet],
    );
    await expectRefused(t, bytes, new RegExp(`is paid for by ${stranger.address}, not ${t.taker.address}`));
  });

  test('the lock as a v0 message that loads an account of the lock from an address lookup table', async () => {
    const t = await startedTrade();
    const tx = Transaction.from(Buffer.from(t.unsigned, 'base64'));
    // The escrow's vault (writable, no signer): hidden behind a table the wallet never shows.
    const vault = lockOf(t, tx).keys[2]?.pubkey as PublicKey;
    const table = new AddressLookupTableAccount({
      key: Keypair.generate().publicKey,
      state: {
        deactivationSlot: 2n ** 64n - 1n,
        lastExtendedSlot: 0,
        lastExtendedSlotStartIndex: 0,
        addresses: [vault],
      },
    });
    const message = MessageV0.compile({
      payerKey: t.taker.wallet.publicKey,
      recentBlockhash: tx.recentBlockhash as string,
      instructions: tx.instructions,
      addressLookupTableAccounts: [table],
    });
    expect(message.addressTableLookups).toHaveLength(1);
    const v0 = new VersionedTransaction(message);
    v0.sign([t.taker.wallet]);
    const bytes = Buffer.from(v0.serialize()).toString('base64');
    await expectRefused(
      t,
      bytes,
      new RegExp(
        `is a v0 message, not legacy; loads accounts from address lookup tables \\(${table.key.toBase58()}\\)`,
      ),
    );
  });

  test('the lock with a compute-budget price the service did not set', async () => {
    const t = await startedTrade();
    const bytes = tampered(t, (tx) => {
      tx.instructions.unshift(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000 }));
    });
    await expectRefused(t, bytes, /adds instruction 0 \(compute budget set compute unit price\)/);
  });

  test('the lock with an instruction removed (the creation of the taker’s output account)', async () => {
    const t = await startedTrade();
    const bytes = tampered(t, (tx) => {
      tx.instructions.shift();
    });
    await expectRefused(t, bytes, /lacks the lock's instruction 0 \(associated token create idempotent\)/);
  });
});

describe(`the lock as built is accepted (${TEST_STORE})`, () => {
  test('signed as handed out, after the tampered copies were refused: sent once, and the trade is initiated', async () => {
    const t = await startedTrade();
    const stranger = Keypair.generate().publicKey;
    const account = ata(t.taker.wallet.publicKey, USDC);
    const approving = tampered(t, (tx) => {
      tx.add(createApproveInstruction(account, stranger, t.taker.wallet.publicKey, HOLDS));
    });
    expect((await submit(t, approving)).res.json().error.code).toBe('lock_mismatch');

    const honest = signAsWallet(t.unsigned, t.taker.wallet);
    const { res, sent } = await submit(t, honest);
    expect(res.statusCode, res.body).toBe(202);
    expect(sent).toEqual([honest]);
    expect(res.json().tx_signature_kinds[0]).toEqual({ kind: 'taker_lock', signature: signatureOf(honest) });
    await t.taker.waitFor(t.tradeId, (trade) => trade.settlement_status === 'initiated');
    const usdc = await usdcAccount(t);
    expect(usdc.amount).toBe(HOLDS - 20_000_000n);
    expect(usdc.delegate).toBeNull();
    expect(await service.chain.getTransaction(signatureOf(approving), 'confirmed')).toBeNull();
  });

  test('the lock a settlement retry hands out on a fresh blockhash is the same lock, and accepted', async () => {
    const t = await startedTrade();
    const first = Transaction.from(Buffer.from(t.unsigned, 'base64'));
    // Slots follow wall time (400 ms): ask again until the retry's blockhash is another one.
    let retried: { transaction_base64: string; recent_blockhash: string } | undefined;
    for (const until = Date.now() + 10_000; Date.now() < until; ) {
      const res = await t.taker.settle(t.quoteId, t.secret);
      expect(res.statusCode, res.body).toBe(200);
      retried = res.json().taker_lock_transaction;
      if (retried?.recent_blockhash !== first.recentBlockhash) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!retried || retried.recent_blockhash === first.recentBlockhash) throw new Error('no fresh blockhash');
    const again = Transaction.from(Buffer.from(retried.transaction_base64, 'base64'));
    again.recentBlockhash = first.recentBlockhash;
    expect(again.serializeMessage().equals(first.serializeMessage())).toBe(true);

    const honest = signAsWallet(retried.transaction_base64, t.taker.wallet);
    const { res, sent } = await submit(t, honest);
    expect(res.statusCode, res.body).toBe(202);
    expect(sent).toEqual([honest]);
  });
});
