// The effects the runtime provides are the machine's, name for name: one file each under
// src/runtime/effects/, put together in one map whose type is the machine's list of effects.
import { expect, test } from 'vitest';
import { TRADE_EFFECTS } from '../../machines/index.ts';
import type { ChainPort } from '../../src/chain/index.ts';
import { chainEffects, type EffectActors, type EffectHooks } from '../../src/runtime/effects/index.ts';

const actors = chainEffects({} as ChainPort, {} as EffectHooks);

test('the runtime provides one effect for each effect the machine invokes, and no other', () => {
  expect(Object.keys(actors).sort()).toEqual([...TRADE_EFFECTS].sort());
});

test('a map of effects missing one of the machine’s, or naming one it does not know, does not typecheck', () => {
  const { closeEscrows, ...withoutClose } = actors;
  // @ts-expect-error closeEscrows is missing: the machine would run the bare placeholder
  const missing: EffectActors = withoutClose;
  // @ts-expect-error sweepDust is no effect of the machine
  const extra: EffectActors = { ...actors, sweepDust: closeEscrows };
  expect([missing, extra]).toHaveLength(2);
});
