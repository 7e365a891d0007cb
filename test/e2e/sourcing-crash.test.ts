// kill -9 while a trade's just-in-time sourcing swap is in flight: the built service as a child process on the
// loopback chain (rpc) with the embedded venue, behind the swap proxy (test/support/swap-proxy.ts). The swap
// is recorded as the trade's intent and sent; the proxy swallows it (it never reaches the chain) or lets it
// land while hiding its status; the process is killed there and started again. The next process lands the
// stored bytes — never a second swap while the first may land — then locks, and the chain ends with one swap
// by the maker, shown on the trade between the taker's lock and the maker's.
import { readFileSync } from 'node:fs';
import { Keypair, PublicKey } from '@solana/web3.js';
import { afterEach, expect, test } from 'vitest';
import { DEFAULT_CONFIG_PATH } from '../../src/config/index.ts';
import { type ChainServer, loopbackDevChain } from '../../src/dev-chain/index.ts';
import { SOL_MINT, USDC_MINT } from '../support/mints.ts';
import { type ServiceProcess, startServiceProcess } from '../support/process.ts';
import { defaultConfigDocument, tempDir } from '../support/service.ts';
import { call, type SwapProxy, type SwapWorldParts, startSwapWorld, until } from '../support/swap-proxy.ts';
import { newSecret, signAsWallet } from '../support/taker.ts';

type Json = ReturnType<typeof JSON.parse>;
const shipped = JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')) as Record<string, unknown>;

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

test.each([
  ['recorded and sent, never reaching the chain', 'drop'],
  ['landed on chain, the service not knowing yet', 'blind'],
] as const)(
  'a sourcing swap %s: after kill -9 the next process lands that one swap, then locks',
  async (_, mode) => {
    const dir = tempDir('rfq-sourcing-crash-');
    dirs.push(dir);
    const doc = defaultConfigDocument();
    doc.http.rate_limit_per_minute = 1_000_000;
    // The venue configured, no sourcing section: sourcing is on. The maker has 2 SOL.
    doc.venue = shipped.venue;
    doc.inventory = doc.inventory.map((entry) => (entry.asset === 'SOL' ? { ...entry, amount: '2' } : entry));
    const { maker, configPath, dataDir } = await startSwapWorld(dir.path, doc, parts);
    chain = parts.chain as ChainServer;
    proxy = parts.proxy as SwapProxy;
    proc = await startServiceProcess(dataDir, { CONFIG: configPath });
    let base = proc.url;
    const ledger = chain.ledger;
    const dev = loopbackDevChain(chain.url);

    // 1000 USDC for SOL: some 5.3 SOL, more than the maker's 2; the rest is sourced.
    const taker = Keypair.generate();
    await dev.airdrop({ wallet: taker.publicKey, mint: new PublicKey(USDC_MINT), amount: 1_000_000_000n });
    const rfq = async () =>
      (
        await call(base, 'POST', '/v1/rfq', {
          input_asset: 'USDC',
          output_asset: 'SOL',
          amount: '1000',
          taker_wallet: taker.publicKey.toBase58(),
        })
      ).json;
    // Quotes are refused (503) until the process has read the maker's balances.
    const quote = await until(rfq, (q) => q.status === 'accepted' || q.status === 'rejected');
    expect(quote.status, JSON.stringify(quote)).toBe('accepted');
    expect(quote.risk_checks).toContain('sourcing');
    const secret = newSecret();
    const settled = (
      await call(base, 'POST', `/v1/quotes/${quote.quote_id}/wallet-settlement`, {
        taker_wallet: taker.publicKey.toBase58(),
        secret_hash: secret.secretHash,
      })
    ).json;
    const tradeId = settled.trade_id as string;
    proxy.mode = mode;
    const locked = await call(base, 'POST', `/v1/trades/${tradeId}/lock`, {
      transaction_base64: signAsWallet(settled.taker_lock_transaction.transaction_base64, taker),
    });
    expect(locked.status, JSON.stringify(locked.json)).toBe(202);

    // The sourcing swap went out (at least once) through the proxy; the maker has not locked.
    await until(
      async () => proxy?.sent.length ?? 0,
      (n) => n > 0,
    );
    const first = proxy.sent[0] as string;
    if (mode === 'drop') {
      expect(ledger.transaction(first)).toBeNull();
    } else {
      await until(
        async () => ledger.transaction(first),
        (tx) => tx !== null,
      );
    }
    const before = (await call(base, 'GET', `/v1/trades/${tradeId}`)).json;
    expect(before.settlement_status).toBe('initiated');
    expect(before.tx_signature_kinds.map((s: Json) => s.kind)).toEqual(['taker_lock']);

    await proc.kill9();
    proxy.mode = 'pass';
    proc = await startServiceProcess(dataDir, { CONFIG: configPath });
    base = proc.url;

    await until(
      async () => (await call(base, 'GET', `/v1/trades/${tradeId}`)).json,
      (t) => t.next_action?.type === 'redeem',
    );
    expect(
      (await call(base, 'POST', `/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage })).status,
    ).toBe(202);
    const done = await until(
      async () => (await call(base, 'GET', `/v1/trades/${tradeId}`)).json,
      (t) => t.settlement_status === 'redeemed',
    );
    expect(done.tx_signature_kinds.map((s: Json) => s.kind)).toEqual([
      'taker_lock',
      'aggregator_swap',
      'maker_lock',
      'taker_redeem',
      'maker_redeem',
    ]);
    // The very bytes stored before the crash: no second swap was ever signed, and one is on chain.
    expect(done.tx_signature_kinds[1].signature).toBe(first);
    expect(new Set(proxy.sent)).toEqual(new Set([first]));
    const swaps = ledger
      .transactionsForAddress(maker.publicKey.toBase58(), 1_000)
      .filter((tx) => tx.loadedAddresses !== null && tx.accountKeys[0] === maker.publicKey.toBase58());
    expect(swaps.map((tx) => tx.signature)).toEqual([first]);
    expect(swaps[0]?.err).toBeNull();
    expect(done.ledger_summary.balanced).toBe(true);
    // The taker got every raw unit quoted.
    expect(ledger.tokenAmount(taker.publicKey, new PublicKey(SOL_MINT))).toBe(
      BigInt(quote.quoted_output_amount_raw),
    );
  },
  120_000,
);
