// kill -9 while a trade mints just in time through the embedded Gateway: the built service as a child process
// on its embedded chain, with the embedded Gateway (anvil and the dev Gateway die with it; its store and the
// chain stay in DATA_DIR). The process is killed as soon as the trade is seen in the mint state named (or past
// it: the steps take milliseconds, and a kill there must end the same), and started again on the same DATA_DIR.
// The next process carries on from what the trade stored — the signed intent (posted again, answered the same
// attestation), the attestation, or the mint sent — and the chain ends with ONE mint: the maker's Solana USDC
// after the maker lock is exactly zero (a second mint would have left the shortfall there), the trade lists
// one gateway_mint, between the taker's lock and the maker's, and the store one transfer, minted and burned.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair, PublicKey } from '@solana/web3.js';
import { afterEach, expect, test } from 'vitest';
import { createService } from '../../src/service.ts';
import { mintingConfig, SOLANA_USDC } from '../support/gateway-mint.ts';
import { USDC_MINT } from '../support/mints.ts';
import { type ServiceProcess, startServiceProcess } from '../support/process.ts';
import { defaultConfigDocument, tempDir, testStore } from '../support/service.ts';
import { newSecret, signAsWallet } from '../support/taker.ts';

type Json = ReturnType<typeof JSON.parse>;

async function call(base: string, method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 10));
    last = await read();
  }
  return last;
}

/** The trade's way through minting, in order; a substate outside it is before (pending, assessing) or past. */
const MINT_STEPS = ['initiated.signingMint', 'initiated.attestingMint', 'initiated.sendingMint'];
const before = (substate: string) =>
  substate.startsWith('pending.') || substate === 'initiated.assessing' || substate === 'initiated.deciding';

let proc: ServiceProcess | undefined;
const dirs: { remove: () => void }[] = [];
afterEach(async () => {
  await proc?.kill9().catch(() => undefined);
  proc = undefined;
  for (const dir of dirs.splice(0)) dir.remove();
});

test.each(MINT_STEPS)(
  'kill -9 once the trade is seen in %s (or past it): the next process mints once, locks, and the swap completes',
  async (crashAt) => {
    const dir = tempDir('rfq-mint-crash-');
    dirs.push(dir);
    const doc = defaultConfigDocument();
    (doc.http as Record<string, unknown>).rate_limit_per_minute = 1_000_000;
    mintingConfig()(doc);
    const configPath = join(dir.path, 'config.json');
    writeFileSync(configPath, JSON.stringify(doc, null, 2));
    proc = await startServiceProcess(dir.path, { CONFIG: configPath });
    let base = proc.url;

    const taker = Keypair.generate();
    const wallet = taker.publicKey.toBase58();
    await call(base, 'POST', '/v1/dev/airdrop', { wallet, asset: 'SOL', amount: '2' });
    // Quotes count the unified balance once the Gateway's first read is in: 0.5 SOL pays ~93 USDC, 50 on Solana.
    const quote = await until(
      async () =>
        (
          await call(base, 'POST', '/v1/rfq', {
            input_asset: 'SOL',
            output_asset: 'USDC',
            amount: '0.5',
            taker_wallet: wallet,
          })
        ).json,
      (q) => q.status === 'accepted' && BigInt(q.quoted_output_amount_raw) > SOLANA_USDC,
    );
    const secret = newSecret();
    const settled = (
      await call(base, 'POST', `/v1/quotes/${quote.quote_id}/wallet-settlement`, {
        taker_wallet: wallet,
        secret_hash: secret.secretHash,
      })
    ).json;
    const tradeId = settled.trade_id as string;
    const locked = await call(base, 'POST', `/v1/trades/${tradeId}/lock`, {
      transaction_base64: signAsWallet(settled.taker_lock_transaction.transaction_base64, taker),
    });
    expect(locked.status, JSON.stringify(locked.json)).toBe(202);

    const reached = MINT_STEPS.slice(MINT_STEPS.indexOf(crashAt));
    const seen = await until(
      async () => (await call(base, 'GET', `/v1/trades/${tradeId}`)).json,
      (t) => reached.includes(t.substate) || !(before(t.substate) || MINT_STEPS.includes(t.substate)),
    );
    await proc.kill9();
    proc = await startServiceProcess(dir.path, { CONFIG: configPath });
    base = proc.url;

    const ready = await until(
      async () => (await call(base, 'GET', `/v1/trades/${tradeId}`)).json,
      (t) => t.next_action?.type === 'redeem' || t.settlement_status !== 'initiated',
    );
    if (ready.next_action?.type !== 'redeem') {
      // What went wrong is in the trade's events (the effect's error, the failure): shown with the trade.
      const events = (await call(base, 'GET', `/v1/trades/${tradeId}/events`)).json;
      expect.fail(`killed in ${seen.substate}: ${JSON.stringify(ready)}\nevents: ${JSON.stringify(events)}`);
    }
    expect(
      (await call(base, 'POST', `/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).status,
    ).toBe(202);
    const done = await until(
      async () => (await call(base, 'GET', `/v1/trades/${tradeId}`)).json,
      (t) => t.settlement_status === 'redeemed',
    );
    const kinds = done.tx_signature_kinds.map((s: Json) => s.kind);
    expect(kinds.slice(0, 3), `killed in ${seen.substate}`).toEqual([
      'taker_lock',
      'gateway_mint',
      'maker_lock',
    ]);
    expect(kinds.filter((k: string) => k === 'gateway_mint')).toHaveLength(1);
    expect(done.ledger_summary.balanced).toBe(true);
    // The dev Gateway of the new process (a fresh anvil, the same contracts and a fresh deposit) burns the
    // intent its store attested before the crash: the trade then lists that burn.
    const burned = await until(
      async () => (await call(base, 'GET', `/v1/trades/${tradeId}`)).json,
      (t) => t.tx_signature_kinds.some((s: Json) => s.kind === 'gateway_burn'),
    );
    expect(burned.tx_signature_kinds.filter((s: Json) => s.kind === 'gateway_burn')).toHaveLength(1);
    await proc.stop();
    proc = undefined;

    // On chain: the maker lock took every raw unit of the maker's Solana USDC — the 50 and the one mint.
    const reopened = await createService({ dataDir: dir.path, ...(await testStore(dir.path)) });
    try {
      const usdc = new PublicKey(USDC_MINT);
      expect(await reopened.chain.tokenBalance(reopened.chain.makerWallet, usdc)).toBe(0n);
      expect(await reopened.chain.tokenBalance(taker.publicKey, usdc)).toBe(
        BigInt(quote.quoted_output_amount_raw),
      );
      // The store holds that one transfer, its mint and its burn the ones the trade lists.
      const signatureOf = (kind: string) =>
        burned.tx_signature_kinds.find((s: Json) => s.kind === kind)?.signature;
      expect(await reopened.store.transfersOfTrades([tradeId])).toEqual([
        expect.objectContaining({
          status: 'burned',
          mintSignature: signatureOf('gateway_mint'),
          burnTx: signatureOf('gateway_burn'),
        }),
      ]);
    } finally {
      await reopened.close();
    }
  },
  240_000,
);
