// The definition reader and its Mermaid rendering on a small machine built to hit what the trade machine
// does not use today: inline and named guard functions, `or`/`not`, parameterised guards, inline and
// built-in actions, edges between nested composites, and labels Mermaid would misread.
import { describe, expect, test } from 'vitest';
import { and, assign, createMachine, not, or, raise, type StateNode } from 'xstate';
import {
  diagramDocument,
  machineDefinition,
  toMermaid,
  transitionLabel,
} from '../../machines/trade.definition.ts';

function isReady() {
  return true;
}

/** A function without a name (an arrow in an array gets none). */
const ANONYMOUS_GUARD = [() => false][0];

const machine = createMachine({
  id: 'demo',
  initial: 'outer',
  on: { 'RESET:ALL;NOW': { target: '.outer' }, 'not.xstate.done.actor.x': {} },
  states: {
    outer: {
      initial: 'a',
      states: {
        a: {
          on: {
            GO: [
              { guard: isReady, target: 'b', actions: [assign({}), raise({ type: 'X' }), () => {}] },
              { guard: () => false, target: '#demo.other.deep.leaf', actions: function named() {} },
              { guard: or(['p', not('q')]), target: '#demo.other' },
              { guard: and([{ type: 'withParams', params: { n: 1 } }]), target: 'a', reenter: true },
              { guard: { type: 'plain' } },
              { guard: ANONYMOUS_GUARD, target: 'b' },
            ],
          },
        },
        b: { type: 'final' },
      },
    },
    other: {
      initial: 'deep',
      description: 'a | b',
      states: {
        deep: {
          initial: 'leaf',
          states: { leaf: { on: { BACK: '#demo.other' } } },
        },
      },
    },
    both: {
      type: 'parallel',
      tags: ['t1', 't2'],
      invoke: [
        { id: 'x', src: 'x' },
        { id: 'y', src: 'y' },
      ],
      states: {
        left: {
          initial: 'l1',
          states: {
            l1: { on: { SPLIT: { target: ['#demo.both.left.l2', '#demo.both.right.r2'] } } },
            l2: {},
          },
        },
        right: { initial: 'r1', states: { r1: {}, r2: {} } },
      },
    },
  },
});
// Read inside each test, never at collection: mutation testing activates a mutant only once tests run.
const definition = () => machineDefinition(machine.root as unknown as StateNode<never, never>, 7);
const go = () => definition().transitions.filter((t) => t.event === 'GO');

describe('machineDefinition on any machine', () => {
  test('names guards: named and inline functions, combinators, typed objects', () => {
    expect(go().map((t) => t.guard)).toEqual([
      'isReady',
      'guard',
      'or(p, not(q))',
      'and(withParams)',
      'plain',
      'inline',
    ]);
  });

  test('names actions: built-in creators by kind, inline functions as inline, named ones by name', () => {
    expect(go()[0]?.actions).toEqual(['xstate.assign', 'xstate.raise', 'inline']);
    expect(go()[1]?.actions).toEqual(['named']);
    expect(go()[3]).toMatchObject({ reenter: true, targets: ['demo.outer.a'] });
    expect(go()[4]).toMatchObject({ targets: [], actions: [] });
  });

  test('an event that only contains the name of an actor outcome is a plain event', () => {
    expect(definition().transitions.find((t) => t.event === 'not.xstate.done.actor.x')).toMatchObject({
      kind: 'event',
      actor: null,
      targets: [],
    });
  });

  test('reads ids, version and the root transition', () => {
    expect(definition()).toMatchObject({ id: 'demo', version: 7, initial: 'demo.outer' });
    expect(definition().transitions[0]).toMatchObject({
      source: 'demo',
      event: 'RESET:ALL;NOW',
      targets: ['demo.outer'],
    });
  });
});

describe('toMermaid', () => {
  const lines = () => toMermaid(definition()).split('\n');

  test('places each edge in the innermost composite holding both ends', () => {
    expect(lines()).toContain('  root --> outer : RESET꞉ALL,NOW');
    expect(lines()).toContain('    outer_a --> outer_b : GO [isReady]');
    expect(lines()).toContain('    outer_a --> outer_a : GO [and(withParams)]');
    expect(lines()).toContain('  outer_a --> other_deep_leaf : GO [guard]');
    expect(lines()).toContain('  outer_a --> other : GO [or(p, not(q))]');
    // An end that is itself the common composite moves the edge one level up.
    expect(lines()).toContain('  other_deep_leaf --> other : BACK');
  });

  test('nests composites, marks initial and final states', () => {
    expect(lines().slice(0, 4)).toEqual([
      'stateDiagram-v2',
      '  state "outer" as outer',
      '  state outer {',
      '    state "a" as outer_a',
    ]);
    expect(lines()).toContain('    outer_b --> [*]');
    expect(lines()).toContain('    [*] --> outer_a');
    expect(lines()).toContain('      [*] --> other_deep_leaf');
    expect(lines()).toContain('  [*] --> outer');
  });

  test('a parallel state starts every region and marks no initial child of its own', () => {
    expect(lines().filter((l) => l.includes('[*] -->'))).toEqual([
      '    [*] --> outer_a',
      '      [*] --> other_deep_leaf',
      '    [*] --> other_deep',
      '      [*] --> both_left_l1',
      '      [*] --> both_right_r1',
      '  [*] --> outer',
    ]);
    expect(lines()).toContain('  state both {');
    expect(lines()).toContain('    state both_left {');
  });

  test('a transition with several targets draws one edge each, in the composite holding both ends', () => {
    expect(lines()).toContain('      both_left_l1 --> both_left_l2 : SPLIT');
    expect(lines()).toContain('    both_left_l1 --> both_right_r2 : SPLIT');
  });

  test('draws the whole machine: nothing more than its states, markers and targeted transitions', () => {
    expect(lines()).toEqual([
      'stateDiagram-v2',
      '  state "outer" as outer',
      '  state outer {',
      '    state "a" as outer_a',
      '    state "b" as outer_b',
      '    outer_b --> [*]',
      '    [*] --> outer_a',
      '    outer_a --> outer_b : GO [isReady]',
      '    outer_a --> outer_a : GO [and(withParams)]',
      '    outer_a --> outer_b : GO [inline]',
      '  }',
      '  state "other" as other',
      '  state other {',
      '    state "deep" as other_deep',
      '    state other_deep {',
      '      state "leaf" as other_deep_leaf',
      '      [*] --> other_deep_leaf',
      '    }',
      '    [*] --> other_deep',
      '  }',
      '  state "both" as both',
      '  state both {',
      '    state "left" as both_left',
      '    state both_left {',
      '      state "l1" as both_left_l1',
      '      state "l2" as both_left_l2',
      '      [*] --> both_left_l1',
      '      both_left_l1 --> both_left_l2 : SPLIT',
      '    }',
      '    state "right" as both_right',
      '    state both_right {',
      '      state "r1" as both_right_r1',
      '      state "r2" as both_right_r2',
      '      [*] --> both_right_r1',
      '    }',
      '    both_left_l1 --> both_right_r2 : SPLIT',
      '  }',
      '  [*] --> outer',
      '  root --> outer : RESET꞉ALL,NOW',
      '  outer_a --> other_deep_leaf : GO [guard]',
      '  outer_a --> other : GO [or(p, not(q))]',
      '  other_deep_leaf --> other : BACK',
    ]);
  });

  test('labels: event, guard, always and settled actors', () => {
    const base = { source: 's', actor: null, targets: [], reenter: false, actions: [] };
    expect(transitionLabel({ ...base, kind: 'always', event: null, guard: 'g' })).toBe('always [g]');
    expect(
      transitionLabel({ ...base, kind: 'error', event: 'xstate.error.actor.x', actor: 'x', guard: null }),
    ).toBe('error x');
  });
});

describe('diagramDocument', () => {
  const doc = () => diagramDocument(definition()).split('\n');

  test('tables escape pipes, show targetless and re-entering transitions and root transitions as (any)', () => {
    expect(doc()).toContain('| `other` |  | compound |  |  | a \\| b |');
    expect(doc()).toContain('| `outer.a` | `GO [plain]` | (stays) |  |');
    expect(doc()).toContain('| `outer.a` | `GO [and(withParams)]` | `outer.a` (re-enters) |  |');
    expect(doc()).toContain('| (any) | `RESET:ALL;NOW` | `outer` |  |');
    expect(doc()).toContain(
      '| `outer.a` | `GO [isReady]` | `outer.b` | xstate.assign, xstate.raise, inline |',
    );
    expect(doc()[0]).toBe('# The trade machine');
  });

  test('names the substate of each state that groups no others: its top-level state and its own name', () => {
    expect(doc()).toContain('| `other.deep.leaf` | `other.leaf` | atomic |  |  |  |');
    expect(doc()).toContain('| `outer.b` | `outer.b` | final |  |  |  |');
    expect(doc()).toContain('| `other.deep` |  | compound |  |  |  |');
  });

  test('lists several tags, invoked actors and targets comma-separated', () => {
    expect(doc()).toContain('| `both` |  | parallel | t1, t2 | x, y |  |');
    expect(doc()).toContain('| `both.left.l1` | `SPLIT` | `both.left.l2`, `both.right.r2` |  |');
  });
});
