// The machine's definition is read off the machine, and the committed diagram follows the machine.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  diagramDocument,
  machineDefinition,
  toMermaid,
  transitionLabel,
} from '../../machines/trade.definition.ts';
import { tradeMachine } from '../../machines/trade.machine.ts';
import { SETTLEMENT_STATUSES } from '../../src/vocabulary/index.ts';

// Read inside each test, never at collection: mutation testing activates a mutant only once tests run.
const definition = () => machineDefinition();
const state = (path: string) => definition().states.find((s) => s.path === path);
const from = (path: string) => definition().transitions.filter((t) => t.source === state(path)?.id);

describe('the trade machine definition', () => {
  test('top-level states are exactly the settlement statuses, pending first', () => {
    expect(state('')?.children).toEqual(SETTLEMENT_STATUSES.map((s) => `trade.${s}`));
    expect(definition().initial).toBe('trade.pending');
    expect(state('pending')?.initial).toBe('trade.pending.awaitingLock');
  });

  test('every state node of the machine appears once, with its full id and type', () => {
    const ids = definition().states.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(state('redeemed.closed')).toMatchObject({ type: 'final', tags: ['closed'] });
    expect(state('initiated.locking.assessing')).toMatchObject({
      id: 'trade.initiated.locking.assessing',
      parent: 'trade.initiated.locking',
      tags: ['effect'],
      invoke: [{ id: 'checkInventory', src: 'checkInventory' }],
    });
    expect(state('initiated.redeeming.makerLocked')?.description).toMatch(/redeem_by/);
    expect(state('initiated.redeeming.makerLocked')?.meta).toEqual({ wakeAt: 'makerExpiry' });
    expect(state('initiated.locking.deciding')?.meta).toBeNull();
    expect(state('initiated.redeeming.makerLocked')?.initial).toBeNull();
    // Resolving each path through the machine proves the ids are real.
    for (const s of definition().states.filter((x) => x.type === 'atomic' || x.type === 'final')) {
      expect(tradeMachine.getStateNodeById(s.id).id).toBe(s.id);
    }
  });

  test('combined guards are rendered by name', () => {
    const abandon = from('pending').find((t) => t.event === 'ABANDON');
    expect(abandon).toMatchObject({
      kind: 'event',
      targets: ['trade.failed'],
      guard: 'and(secretHashMatches, hasNoLockSignature)',
      actions: ['recordAbandon'],
    });
    expect(transitionLabel(abandon as NonNullable<typeof abandon>)).toBe(
      'ABANDON [and(secretHashMatches, hasNoLockSignature)]',
    );
  });

  test('always transitions keep their order, guards and targets', () => {
    expect(from('refunded.settling').map((t) => [t.kind, t.guard, t.targets])).toEqual([
      ['always', 'makerEscrowMayHoldFunds', ['trade.refunded.reclaimingMakerEscrow']],
      ['always', null, ['trade.refunded.closingEscrows']],
    ]);
  });

  test('invoked actors settle through done and error transitions; params guards show their type', () => {
    const done = from('initiated.locking.sendingMakerLock').filter((t) => t.kind === 'done');
    expect(done.map((t) => [t.actor, t.guard, t.targets])).toEqual([
      ['makerLock', 'makerLockLanded', ['trade.initiated.redeeming.makerLocked']],
      ['makerLock', 'makerLockMaySignAgain', ['trade.initiated.locking.signingMakerLock']],
      ['makerLock', null, ['trade.initiated.unwinding.releasingTaker']],
    ]);
    const error = from('initiated.locking.sendingMakerLock').find((t) => t.kind === 'error');
    expect(error).toMatchObject({ targets: [], actions: ['recordEffectError'] });
    // The retry is the runtime's RETRY_EFFECT, re-entering the state once it is due.
    const retry = from('initiated.locking.sendingMakerLock').find((t) => t.event === 'RETRY_EFFECT');
    expect(retry).toMatchObject({
      targets: ['trade.initiated.locking.sendingMakerLock'],
      guard: 'effectRetryDue',
      reenter: true,
      actions: ['markRetryRunning'],
    });
    expect(state('initiated.locking.sendingMakerLock')?.exit).toEqual(['forgetEffectFailure']);
  });

  test('the Mermaid diagram nests states and labels transitions EVENT [guard]', () => {
    const mermaid = toMermaid(definition());
    expect(mermaid.startsWith('stateDiagram-v2\n')).toBe(true);
    expect(mermaid).toContain('state initiated {');
    expect(mermaid).toContain('    state initiated_redeeming {');
    expect(mermaid).toContain(
      'initiated_redeeming_makerLocked --> initiated_redeeming_redeemingForTaker : REDEEM_REQUESTED [and(preimageMatchesSecretHash, makerLockOnChain, redeemWindowOpen)]',
    );
    // A transition leaving its composite is drawn at the level that holds both ends.
    expect(mermaid).toMatch(
      /^ {2}initiated_redeeming_makerRedeeming --> redeemed : done makerRedeem \[endedPaid\]$/m,
    );
    expect(mermaid).toMatch(
      /^ {4}initiated_redeeming_makerLocked --> initiated_unwinding_refundingMakerEscrow : CHAIN_TIME_ADVANCED \[makerEscrowExpired\]$/m,
    );
  });
});

describe('docs/trade-machine.md', () => {
  test('matches the machine (run `npm run machines:diagram` after changing it)', () => {
    const committed = readFileSync(new URL('../../docs/trade-machine.md', import.meta.url), 'utf8');
    expect(committed).toBe(diagramDocument(definition()));
  });
});
