// kill -9 while a hedge is in flight: the built service as a child process on the loopback chain (rpc), behind
// a proxy this test controls. The proxy swallows the maker's swaps (v0 transactions: its escrow transactions
// are legacy) so a hedge is recorded with its signed swap and never lands; or lets them land and hides their
// status, so the swap is on chain while the service has not seen it. The process is killed there and started
// again: it resumes the stored swap — the same bytes, never a second one until the first is proven
// unlandable — and the chain ends with one swap per hedge, shown on the trade that triggered it.

import { readFileSync } from 'node:fs';
import { Keypair, PublicKey } from '@solana/web3.js';
import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULT_CONFIG_PATH } from '../../src/config/index.ts';
import { type ChainServer, loopbackDevChain } from '../../src/dev-chain/index.ts';
import { SOL_MINT } from '../support/mints.ts';
import { type ServiceProcess, startServiceProcess } from '../support/process.ts';
import { defaultConfigDocument, tempDir } from '../support/service.ts';
import { call, type SwapProxy, type SwapWorldParts, startSwapWorld, until } from '../support/swap-proxy.ts';
import { newSecret, signAsWallet } from '../support/taker.ts';

type Json = ReturnType<typeof JSON.parse>;
const shipped = JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')) as Record<string, unknown>;
const RAW = 10n ** 9n;

let chain: ChainServer | undefined;
let proxy: SwapProxy | undefined;
let parts: SwapWorldParts = {};
let proc: ServiceProcess | undefined;
const dirs: { remove: () => void }[] = [];
afterEach(async () => {
  await proc?.kill9().catch(() => undefined);
  proc = undefined;
  await (proxy ?? parts.proxy)?.close();
  proxy = undefined;
  await (chain ?? parts.chain)?.close();
  chain = undefined;
  parts = {};
  for (const dir of dirs.splice(0)) dir.remove();
});

describe('kill -9 with a hedge in flight', () => {
  test.each([
    ['recorded, its swap never sent to the chain', 'drop', false],
    ['its swap landed on chain, the service not knowing yet', 'blind', false],
    ['recorded, and its swap expired unlanded while the service was down', 'drop', true],
  ] as const)(
    '%s: the next process lands one swap, not two, and the trade shows it',
    async (_, mode, expire) => {
      const dir = tempDir('rfq-hedge-crash-');
      dirs.push(dir);
      const doc = defaultConfigDocument();
      doc.http.rate_limit_per_minute = 1_000_000;
      doc.venue = shipped.venue;
      doc.hedging = {
        quote_asset: 'USDC',
        max_slippage_bps: 100,
        retry_seconds: 1,
        assets: { SOL: { target: '10000', band: '4', max_clip: '10', min_clip: '0.5' } },
      };
      const { maker, configPath, dataDir } = await startSwapWorld(dir.path, doc, parts);
      chain = parts.chain as ChainServer;
      proxy = parts.proxy as SwapProxy;
      proc = await startServiceProcess(dataDir, { CONFIG: configPath });
      let base = proc.url;
      const dev = loopbackDevChain(chain.url);
      const ledger = chain.ledger;
      const makerSolBefore = ledger.tokenAmount(maker.publicKey, new PublicKey(SOL_MINT));

      // One taker sells 5 SOL: outside the band (4), one hedge of 5 SOL (max_clip 10).
      const taker = Keypair.generate();
      await dev.airdrop({ wallet: taker.publicKey, mint: new PublicKey(SOL_MINT), amount: 6n * RAW });
      const quote = (
        await call(base, 'POST', '/v1/rfq', {
          input_asset: 'SOL',
          output_asset: 'USDC',
          amount: '5',
          taker_wallet: taker.publicKey.toBase58(),
        })
      ).json;
      expect(quote.status, JSON.stringify(quote)).toBe('accepted');
      const secret = newSecret();
      const settled = (
        await call(base, 'POST', `/v1/quotes/${quote.quote_id}/wallet-settlement`, {
          taker_wallet: taker.publicKey.toBase58(),
          secret_hash: secret.secretHash,
        })
      ).json;
      const tradeId = settled.trade_id as string;
      const locked = await call(base, 'POST', `/v1/trades/${tradeId}/lock`, {
        transaction_base64: signAsWallet(settled.taker_lock_transaction.transaction_base64, taker),
      });
      expect(locked.status, JSON.stringify(locked.json)).toBe(202);
      await until(
        async () => (await call(base, 'GET', `/v1/trades/${tradeId}`)).json,
        (t) => t.next_action?.type === 'redeem',
      );
      proxy.mode = mode;
      expect(
        (await call(base, 'POST', `/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).status,
      ).toBe(202);

      // The hedge is recorded with its swap, and the swap went out (at least once) through the proxy.
      const inventory = async () => (await call(base, 'GET', '/v1/inventory')).json;
      const recorded = await until(
        inventory,
        (v) => v.hedges_in_flight.length === 1 && (proxy?.sent.length ?? 0) > 0,
      );
      const hedge = recorded.hedges_in_flight[0];
      expect(hedge).toMatchObject({ status: 'sending', attempt: 1, trade_id: tradeId, side: 'sell' });
      const first = hedge.signature as string;
      expect(proxy.sent[0]).toBe(first);
      if (mode === 'drop') {
        expect(ledger.transaction(first)).toBeNull();
      } else {
        await until(
          async () => ledger.transaction(first),
          (tx) => tx !== null,
        );
        // Landed, and the service still thinks it in flight.
        expect((await inventory()).hedges_in_flight.map((h: Json) => h.signature)).toEqual([first]);
      }

      await proc.kill9();
      if (expire) {
        // Past the swap's last valid block height while no process watched it: it can never land now.
        await dev.advanceClock(70);
      }
      proxy.mode = 'pass';
      proc = await startServiceProcess(dataDir, { CONFIG: configPath });
      base = proc.url;

      const done = await until(
        inventory,
        (v) => v.hedges_in_flight.length === 0 && v.recent_hedges.some((h: Json) => h.status === 'landed'),
      );
      expect(done.recent_hedges).toHaveLength(1);
      const landed = done.recent_hedges[0];
      expect(landed).toMatchObject({ hedge_id: hedge.hedge_id, status: 'landed', trade_id: tradeId });
      if (expire) {
        // Proven unlandable, then quoted and signed again: a second swap, the first never on chain.
        expect(landed.attempt).toBe(2);
        expect(landed.expired_signatures).toEqual([first]);
        expect(landed.signature).not.toBe(first);
        expect(ledger.transaction(first)).toBeNull();
      } else {
        // The very bytes stored before the crash: no second swap was ever signed.
        expect(landed).toMatchObject({ attempt: 1, signature: first, expired_signatures: [] });
        expect(new Set(proxy.sent)).toEqual(new Set([first]));
      }

      // One swap on chain by the maker: v0, paid by it, successful.
      const swaps = ledger
        .transactionsForAddress(maker.publicKey.toBase58(), 1_000)
        .filter((tx) => tx.loadedAddresses !== null && tx.accountKeys[0] === maker.publicKey.toBase58());
      expect(swaps.map((tx) => tx.signature)).toEqual([landed.signature]);
      expect(swaps[0]?.err).toBeNull();
      // The maker's SOL: +5 from the trade, −5 sold back.
      expect(ledger.tokenAmount(maker.publicKey, new PublicKey(SOL_MINT))).toBe(makerSolBefore);

      const trade = (await call(base, 'GET', `/v1/trades/${tradeId}`)).json;
      expect(trade.tx_signature_kinds.map((s: Json) => s.kind)).toEqual([
        'taker_lock',
        'maker_lock',
        'taker_redeem',
        'maker_redeem',
        'aggregator_swap',
      ]);
      expect(trade.tx_signature_kinds.at(-1).signature).toBe(landed.signature);
      expect(trade.ledger_summary.balanced).toBe(true);
      const { entries } = (await call(base, 'GET', `/v1/runtime/ledger?trade_id=${tradeId}`)).json;
      const swapEntries = entries.filter((e: Json) => e.movement === 'aggregator_swap');
      expect(swapEntries).toHaveLength(4);
      expect(new Set(swapEntries.map((e: Json) => e.signature))).toEqual(new Set([landed.signature]));
    },
    120_000,
  );
});
