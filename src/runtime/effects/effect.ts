// The frame every effect runs in, and what several effects share: the wait for the durability barrier, a
// failure as an EffectError stamped with chain time, "not final yet", a priority fee's deadline.
import { fromPromise } from 'xstate';
import type { EffectFailure } from '../../../machines/index.ts';
import type { LandResult } from '../../chain/index.ts';
import { publicKey } from '../../chain/index.ts';
import type { EffectHooks } from './hooks.ts';

export const key = (address: string) => publicKey(address);

/** An effect's rejection: the machine records it and retries after a backoff from `at`. */
export class EffectError extends Error implements EffectFailure {
  override name = 'EffectError';
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

/** Not final yet, or not visible yet: try again later. */
export class NotYet extends Error {}

/**
 * Every effect: after the barrier; any failure becomes an EffectError stamped with chain time. `signal`
 * aborts once the trade left the effect's state (the actor stopped it): a long effect stops there.
 */
export const effect = <TOutput, TInput extends { tradeId: string }>(
  hooks: Pick<EffectHooks, 'barrier' | 'chainTime'>,
  run: (input: TInput, signal: AbortSignal) => Promise<TOutput>,
) =>
  fromPromise<TOutput, TInput>(async ({ input, signal }) => {
    try {
      await hooks.barrier(input.tradeId);
      // Stopped meanwhile (its trade left the state, or was dropped after a failed write): nothing to do.
      if (signal.aborted) throw new Error('the effect was stopped before it began');
      return await run(input, signal);
    } catch (error) {
      throw new EffectError((error as Error).message ?? String(error), hooks.chainTime());
    }
  });

/** A redeem must land before the escrow expires, a maker lock before its lock deadline: its priority fee rises as that nears. */
export const deadlineOf = (hooks: Pick<EffectHooks, 'chainTime'>) => (deadline: number) => ({
  secondsLeft: deadline - hooks.chainTime(),
});

export function describe(result: LandResult): string {
  return result.status === 'expired' || result.status === 'unknown'
    ? result.status
    : `${result.status}, ${result.err}`;
}
