// The transition log: what an operator reads of stored transitions, as a listener beside metrics.
import { describe, expect, test } from 'vitest';
import type { RuntimeLogger } from '../../src/runtime/logger.ts';
import { type TradeTransition, transitionLog } from '../../src/runtime/transitions.ts';

function capture() {
  const lines: { level: string; obj: object; msg: string | undefined }[] = [];
  const log: RuntimeLogger = {
    info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => lines.push({ level: 'error', obj, msg }),
  };
  return { log, lines };
}

const base: TradeTransition = {
  tradeId: 'trade-1',
  event: 'TAKER_LOCK_FINALIZED',
  from: 'pending',
  to: 'pending',
  substate: 'pending.lockSeen',
  context: { alert: false, effectError: null, assessment: null, inputMint: 'in', outputMint: 'out' },
  alertedBefore: false,
  createdAt: '2026-01-01T00:00:00.000Z',
};

describe('the transition log', () => {
  test('a status change is one info line naming both statuses and the substate; none without a change', () => {
    const { log, lines } = capture();
    const listen = transitionLog(log);
    listen(base);
    listen({ ...base, to: 'initiated', substate: 'initiated.makerLocking' });
    expect(lines).toEqual([
      {
        level: 'info',
        obj: { trade_id: 'trade-1', from: 'pending', to: 'initiated', substate: 'initiated.makerLocking' },
        msg: 'trade status',
      },
    ]);
  });

  test('the maker-loss alert is logged at error level once, when it is first raised', () => {
    const { log, lines } = capture();
    const listen = transitionLog(log);
    const lost = { ...base.context, alert: true, failureReason: 'maker_missed_redeem' as const };
    listen({ ...base, from: 'initiated', to: 'initiated', context: lost });
    listen({ ...base, from: 'initiated', to: 'initiated', context: lost, alertedBefore: true });
    expect(lines).toEqual([
      {
        level: 'error',
        obj: { trade_id: 'trade-1', reason: 'maker_missed_redeem' },
        msg: 'ALERT: maker lost funds',
      },
    ]);
  });

  test('an effect is logged as failing from its fifth failed attempt while a retry is planned', () => {
    const { log, lines } = capture();
    const listen = transitionLog(log);
    const failing = (attempts: number, retryAt: number | null) => ({
      ...base,
      context: {
        ...base.context,
        effectError: { effect: 'makerLock' as const, message: 'chain unreachable', attempts, retryAt },
      },
    });
    listen(failing(4, 100));
    listen(failing(5, null));
    listen(failing(5, 100));
    listen(failing(6, 130));
    expect(lines.map((line) => [line.level, line.obj, line.msg])).toEqual([
      [
        'warn',
        { trade_id: 'trade-1', effect: 'makerLock', attempts: 5 },
        'effect failing: chain unreachable',
      ],
      [
        'warn',
        { trade_id: 'trade-1', effect: 'makerLock', attempts: 6 },
        'effect failing: chain unreachable',
      ],
    ]);
  });
});
