// The trade machine's definition as plain data, read off the machine itself (never hand-written), and its
// Mermaid rendering. Pure: GET /v1/runtime/machines/trade, the visualiser and docs/trade-machine.md all use it.
import { and, not, or, type StateNode } from 'xstate';
import { publicSubstate, type Substate } from '../src/vocabulary/index.ts';
import { TRADE_MACHINE_VERSION, tradeMachine } from './trade.machine.ts';

export type StateType = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
/** How a transition is triggered: a named event, an eventless check, or an invoked actor settling. */
export type TransitionKind = 'event' | 'always' | 'done' | 'error';

export interface StateDefinition {
  /** The full id, e.g. `trade.initiated.redeeming.makerLocked`. */
  id: string;
  /** The state path, e.g. `initiated.redeeming.makerLocked` ('': root). */
  path: string;
  /**
   * What TradeResponse.substate and the events say while a trade is in this state, e.g.
   * `initiated.makerLocked`; null for the root and the states that only group others.
   */
  substate: Substate | null;
  key: string;
  parent: string | null;
  type: StateType;
  /** Full id of the initial child of a compound state. */
  initial: string | null;
  children: string[];
  tags: string[];
  description: string | null;
  meta: Record<string, unknown> | null;
  entry: string[];
  exit: string[];
  invoke: { id: string; src: string }[];
}

export interface TransitionDefinition {
  /** Full id of the state that declares the transition. */
  source: string;
  kind: TransitionKind;
  /** The event type; null for `always`. */
  event: string | null;
  /** For done/error: the invoked actor's id. */
  actor: string | null;
  /** Full ids; empty for a targetless transition (actions only, no state change). */
  targets: string[];
  /** The guard by name; combinators as `and(a, b)`, `or(a, b)`, `not(a)`. */
  guard: string | null;
  reenter: boolean;
  actions: string[];
}

export interface MachineDefinition {
  id: string;
  version: number;
  /** Full id of the root's initial state. */
  initial: string | null;
  /** Document order, every parent before its children. */
  states: StateDefinition[];
  /** Per state in document order, candidates of one event in the order the machine tries them. */
  transitions: TransitionDefinition[];
}

// The combinators are recognised by their check functions, which xstate shares between all instances.
type Combinator = ((...args: never[]) => unknown) & { check?: unknown; guards: unknown[] };
const COMBINATORS = new Map<unknown, string>([
  [(and([]) as Partial<Combinator>).check, 'and'],
  [(or([]) as Partial<Combinator>).check, 'or'],
  [(not('x') as Partial<Combinator>).check, 'not'],
]);

/**
 * A guard or action as xstate keeps it: a name, an object `{ type, params }`, a built-in action creator
 * (assign, raise, …: a function carrying its kind on `type`), or a plain function, named or inline.
 */
function implementationName(implementation: unknown): string {
  if (typeof implementation === 'string') return implementation;
  const { type, name } = implementation as { type?: unknown; name?: string };
  return typeof type === 'string' ? type : name || 'inline';
}

function guardName(guard: unknown): string {
  const combinator = COMBINATORS.get((guard as Partial<Combinator>).check);
  // xstate keeps a combinator's operands as an array, `not` included.
  if (combinator !== undefined)
    return `${combinator}(${(guard as Combinator).guards.map(guardName).join(', ')})`;
  return implementationName(guard);
}

type AnyNode = StateNode<never, never>;

const pathOf = (node: AnyNode): string => node.path.join('.');

function transitionOf(source: AnyNode, event: string | null, t: AnyTransition): TransitionDefinition {
  const done = event?.match(/^xstate\.(done|error)\.actor\.(.+)/);
  return {
    source: source.id,
    kind: event === null ? 'always' : done ? (done[1] as 'done' | 'error') : 'event',
    event,
    actor: done?.[2] ?? null,
    targets: (t.target ?? []).map((target) => target.id),
    guard: t.guard === undefined ? null : guardName(t.guard),
    reenter: t.reenter,
    actions: t.actions.map(implementationName),
  };
}

type AnyTransition = {
  target?: readonly { id: string }[] | undefined;
  guard?: unknown;
  reenter: boolean;
  actions: readonly unknown[];
};

/** The definition of a machine, by walking its StateNodes. */
export function machineDefinition(
  root: AnyNode = tradeMachine.root as unknown as AnyNode,
  version = TRADE_MACHINE_VERSION,
): MachineDefinition {
  const states: StateDefinition[] = [];
  const transitions: TransitionDefinition[] = [];
  const visit = (node: AnyNode) => {
    const children = Object.values(node.states) as AnyNode[];
    states.push({
      id: node.id,
      path: pathOf(node),
      substate: children.length === 0 && node.parent ? publicSubstate(pathOf(node)) : null,
      key: node.key,
      parent: node.parent?.id ?? null,
      type: node.type,
      // Empty for atomic and parallel states.
      initial: node.initial.target[0]?.id ?? null,
      children: children.map((child) => child.id),
      tags: [...node.tags],
      description: node.description ?? null,
      meta: (node.meta as Record<string, unknown> | undefined) ?? null,
      entry: node.entry.map(implementationName),
      exit: node.exit.map(implementationName),
      // xstate names inline actor logic itself, so src is always a string.
      invoke: node.invoke.map((i) => ({ id: i.id, src: String(i.src) })),
    });
    for (const [event, candidates] of node.transitions) {
      for (const t of candidates) transitions.push(transitionOf(node, event, t as AnyTransition));
    }
    for (const t of node.always ?? []) transitions.push(transitionOf(node, null, t as AnyTransition));
    children.forEach(visit);
  };
  visit(root);
  return {
    id: root.id,
    version,
    initial: root.initial.target[0]?.id ?? null,
    states,
    transitions,
  };
}

/** `EVENT [guard]`, `done makerLock [makerLockLanded]`, `always [guard]`: one label for diagrams and the page. */
export function transitionLabel(t: TransitionDefinition): string {
  const trigger =
    t.kind === 'event' ? (t.event ?? '') : t.kind === 'always' ? 'always' : `${t.kind} ${t.actor}`;
  return t.guard === null ? trigger : `${trigger} [${t.guard}]`;
}

// ── Mermaid ─────────────────────────────────────────────────────────────────────────────────────

/** Mermaid ids are plain words: a state's path with dots turned into underscores. */
const mermaidId = (def: MachineDefinition, id: string): string =>
  id === def.id ? 'root' : id.slice(def.id.length + 1).replaceAll('.', '_');

const mermaidText = (text: string) => text.replaceAll(':', '꞉').replaceAll(';', ',');

/**
 * stateDiagram-v2 with nested states. A transition drawn inside a composite whose ends lie outside it
 * would make Mermaid invent a duplicate node, so each transition goes into the innermost composite holding
 * both its ends (the top level when that is the root). Targetless transitions change no state and are
 * listed in the tables instead.
 */
export function toMermaid(def: MachineDefinition): string {
  const parentOf = new Map(def.states.map((s) => [s.id, s.parent]));
  const lines: string[] = ['stateDiagram-v2'];
  const edgesIn = new Map<string, string[]>();
  const ancestors = (id: string): string[] => {
    const chain: string[] = [];
    for (let s: string | null | undefined = id; s; s = parentOf.get(s)) chain.unshift(s);
    return chain;
  };
  for (const t of def.transitions) {
    for (const target of t.targets) {
      // The innermost composite holding both ends as descendants (an end that is itself that composite
      // moves the edge one level up).
      const a = ancestors(t.source);
      const b = ancestors(target);
      let depth = 0;
      while (depth < a.length && a[depth] === b[depth]) depth++;
      let common = a[depth - 1] ?? def.id;
      if (common === t.source || common === target) common = parentOf.get(common) ?? def.id;
      const from = mermaidId(def, t.source);
      const to = mermaidId(def, target);
      const list = edgesIn.get(common) ?? [];
      list.push(`${from} --> ${to} : ${mermaidText(transitionLabel(t))}`);
      edgesIn.set(common, list);
    }
  }
  const initialOf = new Map(def.states.map((s) => [s.id, s.initial]));
  const emit = (parentId: string, indent: string) => {
    for (const child of def.states.filter((s) => s.parent === parentId)) {
      const id = mermaidId(def, child.id);
      lines.push(`${indent}state "${child.key}" as ${id}`);
      if (child.children.length > 0) {
        lines.push(`${indent}state ${id} {`);
        emit(child.id, `${indent}  `);
        lines.push(`${indent}}`);
      }
      if (child.type === 'final') lines.push(`${indent}${id} --> [*]`);
    }
    // A parallel state has no initial child: its regions all start.
    const initial = initialOf.get(parentId);
    if (initial) lines.push(`${indent}[*] --> ${mermaidId(def, initial)}`);
    for (const edge of edgesIn.get(parentId) ?? []) lines.push(`${indent}${edge}`);
  };
  emit(def.id, '  ');
  return lines.join('\n');
}

const cell = (text: string) => text.replaceAll('|', '\\|');

/** The Markdown page committed as docs/trade-machine.md. */
export function diagramDocument(def: MachineDefinition = machineDefinition()): string {
  const paths = new Map(def.states.map((s) => [s.id, s.path]));
  const path = (id: string) => paths.get(id);
  const out: string[] = [
    '# The trade machine',
    '',
    '<!-- Generated by `npm run machines:diagram` from machines/trade.definition.ts; do not edit by hand. -->',
    '',
    `Machine \`${def.id}\`, version ${def.version}. Transitions are labelled \`EVENT [guard]\`; \`always\` ` +
      'transitions are eventless; `done`/`error` name the invoked actor that settled. Targetless transitions ' +
      '(actions only) are listed in the tables, not drawn.',
    '',
    '```mermaid',
    toMermaid(def),
    '```',
    '',
    '## States',
    '',
    '`substate`: what TradeResponse and the trade events say while a trade is in the state ' +
      '([the public substates](interface.md#substates)).',
    '',
    '| state | substate | type | tags | invokes | description |',
    '|---|---|---|---|---|---|',
  ];
  for (const s of def.states) {
    if (s.id === def.id) continue;
    const invokes = s.invoke.map((i) => i.src).join(', ');
    const substate = s.substate === null ? '' : `\`${s.substate}\``;
    out.push(
      `| \`${s.path}\` | ${substate} | ${s.type} | ${s.tags.join(', ')} | ${invokes} | ${cell(s.description ?? '')} |`,
    );
  }
  out.push('', '## Transitions', '', '| from | on | to | actions |', '|---|---|---|---|');
  for (const t of def.transitions) {
    const to = t.targets.length === 0 ? '(stays)' : t.targets.map((id) => `\`${path(id)}\``).join(', ');
    const from = t.source === def.id ? '(any)' : `\`${path(t.source)}\``;
    const reenter = t.reenter ? ' (re-enters)' : '';
    out.push(`| ${from} | \`${cell(transitionLabel(t))}\` | ${to}${reenter} | ${t.actions.join(', ')} |`);
  }
  return `${out.join('\n')}\n`;
}
