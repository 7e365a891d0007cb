// substate is part of the contract: integrators wait on its values by name. PUBLISHED is the list as
// published (docs/interface.md#substates, CHANGELOG.md). This file fails when the OpenAPI document, the trade
// machine (through the one mapping from its state paths) or the interface page names one value more, one
// fewer or one differently. Changing PUBLISHED is a change of the contract: a CHANGELOG.md entry first.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { StateNode, StateValue } from 'xstate';
import { PHASE_OF_V4_INITIATED, substateOf, tradeMachine } from '../../machines/index.ts';
import { machineDefinition } from '../../machines/trade.definition.ts';
import { publicSubstate } from '../../src/vocabulary/index.ts';
import { startService, type TestService } from '../support/service.ts';
import { newSecret, Taker } from '../support/taker.ts';

const PUBLISHED = [
  'pending.awaitingLock',
  'pending.broadcastingLock',
  'pending.lockSubmitted',
  'pending.lockSeen',
  'initiated.assessing',
  'initiated.deciding',
  'initiated.signingMint',
  'initiated.attestingMint',
  'initiated.sendingMint',
  'initiated.signingSourcing',
  'initiated.sendingSourcing',
  'initiated.signingMakerLock',
  'initiated.sendingMakerLock',
  'initiated.makerLocked',
  'initiated.redeemingForTaker',
  'initiated.takerRedeemLanded',
  'initiated.makerRedeeming',
  'initiated.refundingMakerEscrow',
  'initiated.awaitingTakerExpiry',
  'initiated.refundingTakerEscrow',
  'initiated.releasingTaker',
  'initiated.takerLockRolledBack',
  'initiated.reclaimingAfterRollback',
  'redeemed.closingEscrows',
  'redeemed.closed',
  'refunded.settling',
  'refunded.reclaimingMakerEscrow',
  'refunded.closingEscrows',
  'refunded.closed',
  'failed.lockWindowOpen',
  'failed.noLock',
  'failed.lateLockSeen',
  'failed.lateLockFinalized',
  'failed.releasingLateLock',
  'failed.awaitingLateLockExpiry',
  'failed.refundingLateLock',
  'failed.released',
];
const sorted = (values: Iterable<string>) => [...values].sort();

type AnyNode = StateNode<never, never>;

/** The path of every state a trade can be in: the machine's leaves, walked from its root. */
function leafPaths(node: AnyNode = tradeMachine.root as unknown as AnyNode): string[][] {
  const children = Object.values(node.states) as AnyNode[];
  return children.length === 0 ? [node.path] : children.flatMap((child) => leafPaths(child));
}

/** `['initiated', 'redeeming', 'makerLocked']` → `{ initiated: { redeeming: 'makerLocked' } }`. */
const stateValueAt = (path: string[]): StateValue =>
  path.slice(0, -1).reduceRight<StateValue>((inner, key) => ({ [key]: inner }), path.at(-1) as string);

describe('the substates the machine can show', () => {
  const leaves = leafPaths();
  // What renderTrade and the events do: the snapshot's state path, through the one mapping.
  const shown = leaves.map((path) => publicSubstate(substateOf({ value: stateValueAt(path) })));

  test('are exactly the published ones, one state each', () => {
    expect(leaves.length).toBeGreaterThan(30);
    expect(sorted(shown)).toEqual(sorted(PUBLISHED));
    expect(new Set(shown).size).toBe(leaves.length);
  });

  test('are what the machine definition gives its states (the route and the visualiser read it there)', () => {
    const named = machineDefinition().states.flatMap((s) => (s.substate === null ? [] : [s.substate]));
    expect(sorted(named)).toEqual(sorted(PUBLISHED));
  });

  test('read the same from a record or an event stored by machine version 4 (flat under initiated)', () => {
    for (const value of PUBLISHED) expect(publicSubstate(value)).toBe(value);
    const v4Initiated = Object.keys(PHASE_OF_V4_INITIATED).map((state) => `initiated.${state}`);
    // Version 6 added the states of a confirmed taker lock rolled back by a fork (CHANGELOG.md, 2026-11-28).
    // Version 7 the states of just-in-time minting through Gateway (CHANGELOG.md, 2026-11-28).
    const sinceV6 = [
      'initiated.takerLockRolledBack',
      'initiated.reclaimingAfterRollback',
      'initiated.signingMint',
      'initiated.attestingMint',
      'initiated.sendingMint',
    ];
    const published = PUBLISHED.filter((s) => s.startsWith('initiated.') && !sinceV6.includes(s));
    expect(sorted(v4Initiated)).toEqual(sorted(published));
  });

  test('would not match, were a state renamed or moved out of its status (the check is not vacuous)', () => {
    expect(publicSubstate('initiated.redeeming.makerLockedNow')).not.toBe('initiated.makerLocked');
    expect(PUBLISHED).not.toContain(publicSubstate('settled.redeeming.makerLocked'));
  });
});

describe('docs/interface.md', () => {
  test('lists every published substate in its Substates section, and no other', () => {
    const page = readFileSync(new URL('../../docs/interface.md', import.meta.url), 'utf8');
    const section = page.split(/^### Substates$/m)[1]?.split(/^#{1,3} /m)[0] ?? '';
    const listed = [...section.matchAll(/^\| `([a-z]+\.[A-Za-z]+)` \|/gm)].map(
      ([, value]) => value as string,
    );
    expect(listed).toEqual(PUBLISHED);
  });
});

describe('the service', () => {
  let service: TestService;
  // biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked dynamically here.
  let doc: any;
  beforeAll(async () => {
    service = await startService(undefined, { pollIntervalMs: 50, lockWaitMs: 3_000 });
    doc = (await service.app.inject('/v1/openapi.json')).json();
  });
  afterAll(async () => service?.dispose());

  /** Every `substate` property of the document's response schemas: its operation, and the values it lists. */
  function substateSchemas() {
    const found: { operation: string; values: unknown }[] = [];
    const visit = (node: unknown, operation: string) => {
      if (node === null || typeof node !== 'object') return;
      const properties = (node as { properties?: Record<string, unknown> }).properties;
      const substate = properties?.substate as { enum?: unknown; anyOf?: { enum?: unknown }[] } | undefined;
      if (substate) {
        const values = substate.enum ?? substate.anyOf?.find((branch) => branch.enum)?.enum;
        found.push({ operation, values });
      }
      for (const child of Object.values(node)) visit(child, operation);
    };
    for (const item of Object.values<Record<string, { operationId: string; responses: unknown }>>(doc.paths))
      for (const operation of Object.values(item)) visit(operation.responses, operation.operationId);
    return found;
  }

  test('lists the published substates as the enum of every substate the OpenAPI document shows', () => {
    const schemas = substateSchemas();
    for (const { operation, values } of schemas)
      expect(sorted(values as string[]), operation).toEqual(sorted(PUBLISHED));
    // TradeResponse on every trade route, and TradeEvent on the trade's events and the runtime's log.
    const operations = new Set(schemas.map(({ operation }) => operation));
    for (const id of [
      'getTrade',
      'listTrades',
      'submitLock',
      'redeemTrade',
      'listTradeEvents',
      'listRuntimeEvents',
    ])
      expect(operations).toContain(id);
  });

  test('shows only published substates through a whole swap, and an event stored by version 4 by its name', async () => {
    const taker = new Taker(service.app);
    await taker.airdrop('SOL', '3');
    const quote = await taker.quote('SOL', 'USDC', '1.5');
    const secret = newSecret();
    const settlement = (await taker.settle(quote.quote_id, secret)).json();
    const tradeId: string = settlement.trade_id;
    const seen = new Set<string>();
    const locked = await taker.lock(tradeId, settlement.taker_lock_transaction.transaction_base64);
    seen.add(locked.json().substate);
    const makerLocked = await taker.waitFor(tradeId, (t) => {
      seen.add(t.substate);
      return t.substate === 'initiated.makerLocked';
    });
    expect(makerLocked.next_action.type).toBe('redeem');
    await taker.post(`/v1/trades/${tradeId}/redeem`, { preimage: secret.preimage });
    await taker.waitFor(tradeId, (t) => {
      seen.add(t.substate);
      return t.substate === 'redeemed.closed';
    });

    // Rows written before this build: version 4 stored the flat name, version 5 the path with its phase.
    const event = {
      tradeId,
      runId: service.runId,
      at: new Date().toISOString(),
      status: 'initiated' as const,
    };
    const outcomes = await service.store.commit([
      {
        kind: 'appendEvents',
        events: [
          { ...event, type: 'STORED_BY_V4', substate: 'initiated.makerLocked', payload: {} },
          { ...event, type: 'STORED_BY_V5', substate: 'initiated.redeeming.makerLocked', payload: {} },
        ],
      },
    ]);
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    const { events } = (await taker.get(`/v1/trades/${tradeId}/events`)).json();
    for (const e of events) seen.add(e.substate);
    const stored = Object.fromEntries(
      events.map((e: { type: string; substate: string }) => [e.type, e.substate]),
    );
    expect(stored).toMatchObject({
      STORED_BY_V4: 'initiated.makerLocked',
      STORED_BY_V5: 'initiated.makerLocked',
    });

    expect(seen).toContain('initiated.makerLocked');
    expect(sorted(seen).filter((s) => !PUBLISHED.includes(s))).toEqual([]);
  });
});
