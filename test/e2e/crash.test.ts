// kill -9 at each step of a swap: a new process on the same DATA_DIR adopts the trade, loses nothing the
// first one acknowledged, never locks twice, and finishes the swap.
import { Keypair, PublicKey } from '@solana/web3.js';
import { afterEach, describe, expect, test } from 'vitest';
import { createService } from '../../src/service.ts';
import { USDC_MINT as USDC } from '../support/mints.ts';
import { type ServiceProcess, startServiceProcess } from '../support/process.ts';
import { tempDir, testStore } from '../support/service.ts';
import { newSecret, signAsWallet } from '../support/taker.ts';

type Json = ReturnType<typeof JSON.parse>;

async function call(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

async function waitFor(
  base: string,
  tradeId: string,
  done: (t: Json) => boolean,
  timeoutMs = 20_000,
): Promise<Json> {
  const until = Date.now() + timeoutMs;
  let last: Json = null;
  while (Date.now() < until) {
    last = (await call(base, 'GET', `/v1/trades/${tradeId}`)).json;
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out: ${JSON.stringify(last)}`);
}

/** The steps of a swap, each an HTTP call the taker makes; a crash may follow any of them. */
const STEPS = ['settled', 'locked', 'maker_locked', 'redeem_requested'] as const;
type Step = (typeof STEPS)[number];

let proc: ServiceProcess | undefined;
const dirs: { remove: () => void }[] = [];
afterEach(async () => {
  await proc?.kill9().catch(() => undefined);
  proc = undefined;
  for (const dir of dirs.splice(0)) dir.remove();
});

describe('kill -9 during a swap', () => {
  test.each(STEPS)(
    'after %s: the next process adopts the trade and finishes it with one maker lock',
    async (crashAfter: Step) => {
      const dir = tempDir('rfq-crash-');
      dirs.push(dir);
      const taker = Keypair.generate();
      const wallet = taker.publicKey.toBase58();
      const secret = newSecret();
      proc = await startServiceProcess(dir.path);
      let base = proc.url;
      const acknowledged: string[] = [];

      const crashIf = async (step: Step) => {
        acknowledged.push(step);
        if (step !== crashAfter || !proc) return;
        await proc.kill9();
        proc = await startServiceProcess(dir.path);
        base = proc.url;
      };

      await call(base, 'POST', '/v1/dev/airdrop', { wallet, asset: 'SOL', amount: '3' });
      const quote = (
        await call(base, 'POST', '/v1/rfq', {
          input_asset: 'SOL',
          output_asset: 'USDC',
          amount: '1',
          taker_wallet: wallet,
        })
      ).json;
      const settled = await call(base, 'POST', `/v1/quotes/${quote.quote_id}/wallet-settlement`, {
        taker_wallet: wallet,
        secret_hash: secret.secretHash,
      });
      expect(settled.status).toBe(201);
      const tradeId = settled.json.trade_id as string;
      await crashIf('settled');

      // After a crash the settlement retry hands out a fresh lock for the same trade.
      const lockTx =
        crashAfter === 'settled'
          ? (
              await call(base, 'POST', `/v1/quotes/${quote.quote_id}/wallet-settlement`, {
                taker_wallet: wallet,
                secret_hash: secret.secretHash,
              })
            ).json
          : settled.json;
      expect(lockTx.trade_id).toBe(tradeId);
      const locked = await call(base, 'POST', `/v1/trades/${tradeId}/lock`, {
        transaction_base64: signAsWallet(lockTx.taker_lock_transaction.transaction_base64, taker),
      });
      expect(locked.status, JSON.stringify(locked.json)).toBe(202);
      await crashIf('locked');

      await waitFor(base, tradeId, (t) => t.substate === 'initiated.makerLocked');
      await crashIf('maker_locked');

      const redeem = await call(base, 'POST', `/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage });
      expect(redeem.status).toBe(202);
      await crashIf('redeem_requested');

      const done = await waitFor(base, tradeId, (t) => t.settlement_status === 'redeemed');
      expect(done.run_id).not.toBe(undefined);
      expect(done.current_run).toBe(true);
      const kinds = done.tx_signature_kinds.map((s: { kind: string }) => s.kind);
      expect(kinds.filter((k: string) => k === 'maker_lock')).toHaveLength(1);
      expect(kinds).toEqual(['taker_lock', 'maker_lock', 'taker_redeem', 'maker_redeem']);
      expect(done.ledger_summary.balanced).toBe(true);
      expect(acknowledged).toEqual([...STEPS]);

      // Nothing acknowledged was lost: the history shows every step, and the taker holds the quoted output.
      const events = (await call(base, 'GET', `/v1/trades/${tradeId}/events`)).json.events.map(
        (e: { type: string }) => e.type,
      );
      expect(events[0]).toBe('SETTLEMENT_STARTED');
      expect(events).toContain('LOCK_SUBMITTED');
      expect(events).toContain('REDEEM_REQUESTED');
      expect(events).toContain('ADOPTED');
      await proc.stop();
      proc = undefined;
      const reopened = await createService({ dataDir: dir.path, ...(await testStore(dir.path)) });
      try {
        const balance = await reopened.chain.tokenBalance(new PublicKey(wallet), new PublicKey(USDC));
        expect(balance).toBe(BigInt(quote.output.amount_raw));
      } finally {
        await reopened.close();
      }
    },
  );
});
