// The burn follower (src/runtime/gateway-burns.ts) over a real SQLite store and a Gateway port that answers
// as a test needs: it follows what the store lists as open, each period anew — so a transfer stored after it
// started is followed, and one stored before it started (a restart) too —, a burn seen is the transfer burned
// with its trade's GATEWAY_BURN event, a transfer Gateway gave up is closed, and a Gateway that does not
// answer leaves the transfer open for the next period.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { GatewayTransferState } from '../../src/gateway/port.ts';
import { GatewayBurns, gatewayBurnsOf } from '../../src/runtime/gateway-burns.ts';
import { openStore, type Store, type TradeRecord, type TransferRecord } from '../../src/store/index.ts';
import { commitAll, quoteRecord, startedEvent, startRun, tradeRecord } from '../store/fixtures.ts';
import { tempDir } from '../support/service.ts';

const RUN = randomUUID();

describe('the burn follower', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: Store;
  let trade: TradeRecord;
  const warn = vi.fn();

  beforeEach(async () => {
    dir = tempDir('rfq-burns-');
    store = await openStore({ dataDir: dir.path });
    await startRun(store, RUN);
    const quote = quoteRecord(RUN);
    trade = tradeRecord(quote);
    await commitAll(
      store,
      { kind: 'insertQuote', quote },
      { kind: 'createTrade', trade, event: startedEvent(trade) },
    );
    warn.mockReset();
  });

  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  /** A transfer of the trade, stored as its transition stores it (minted unless told). */
  async function stored(overrides: Partial<TransferRecord> = {}): Promise<TransferRecord> {
    const transfer: TransferRecord = {
      transferId: `0x${randomBytes(32).toString('hex')}`,
      gatewayTransferId: randomUUID(),
      tradeId: trade.tradeId,
      purpose: 'trade_mint',
      sourceDomain: 6,
      valueRaw: 43_000_000n,
      maxFeeRaw: 5_000_000n,
      feeRaw: 2_000_000n,
      status: 'minted',
      mintSignature: randomBytes(64).toString('hex'),
      burnTx: null,
      attestedAt: new Date().toISOString(),
      mintedAt: new Date().toISOString(),
      burnedAt: null,
      expiredAt: null,
      ...overrides,
    };
    await commitAll(store, {
      kind: 'saveTransition',
      update: { ...trade, updatedAt: new Date().toISOString() },
      events: [],
      ledger: [],
      transfers: [transfer],
    });
    return transfer;
  }

  /** A follower whose Gateway answers from `states` by Gateway's id (throwing for an id it does not know). */
  function follower(states: Map<string, GatewayTransferState>) {
    const heard: string[] = [];
    const asked: string[] = [];
    const burns = new GatewayBurns({
      port: {
        transferStatus: async (id) => {
          asked.push(id);
          const state = states.get(id);
          if (!state) throw new Error('Gateway did not answer');
          return state;
        },
      },
      store,
      write: (write) => commitAll(store, write),
      runId: RUN,
      eventsStored: (tradeId) => heard.push(tradeId),
      intervalMs: 60_000,
      log: { warn },
    });
    return { burns, heard, asked };
  }

  const stateOf = (
    t: TransferRecord,
    status: GatewayTransferState['status'],
    burnTxHash: string | null = null,
  ) => [t.gatewayTransferId, { transferId: t.gatewayTransferId, status, burnTxHash }] as const;

  test('a burn seen: the transfer burned and its trade’s gateway_burn, once, its views told', async () => {
    const before = await stored();
    const states = new Map([stateOf(before, 'minted')]);
    const { burns, heard, asked } = follower(states);
    await burns.poll();
    expect(asked).toEqual([before.gatewayTransferId]);
    expect(gatewayBurnsOf(await store.tradeEvents(trade.tradeId))).toEqual([]);
    // Stored after the follower started: followed from the next period.
    const after = await stored();
    states.set(...stateOf(before, 'burned', '0xb1'));
    states.set(...stateOf(after, 'burned', '0xb2'));
    await burns.poll();
    expect(gatewayBurnsOf(await store.tradeEvents(trade.tradeId))).toEqual(['0xb1', '0xb2']);
    expect(heard).toEqual([trade.tradeId, trade.tradeId]);
    expect((await store.getTransfer(before.transferId))?.status).toBe('burned');
    // Nothing open: nothing asked any more.
    asked.length = 0;
    await burns.poll();
    expect(asked).toEqual([]);
    expect(gatewayBurnsOf(await store.tradeEvents(trade.tradeId))).toHaveLength(2);
  });

  test('a transfer Gateway gave up is closed; a minted one said expired is warned of', async () => {
    const unminted = await stored({ status: 'attested', mintSignature: null, mintedAt: null });
    const minted = await stored();
    const { burns } = follower(new Map([stateOf(unminted, 'expired'), stateOf(minted, 'expired')]));
    await burns.poll();
    expect(await store.openTransfers()).toEqual([]);
    expect((await store.getTransfer(unminted.transferId))?.status).toBe('expired');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[1]).toMatch(/minted transfer as expired/);
  });

  test('a Gateway that does not answer leaves the transfer open for the next period', async () => {
    const transfer = await stored();
    const states = new Map<string, GatewayTransferState>();
    const { burns } = follower(states);
    await burns.poll();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(await store.openTransfers()).toEqual([transfer]);
    states.set(...stateOf(transfer, 'burned', '0xlate'));
    await burns.poll();
    expect(gatewayBurnsOf(await store.tradeEvents(trade.tradeId))).toEqual(['0xlate']);
  });
});
