// The contract written in machines/trade.types.ts cannot fall behind the machine: every event the machine
// takes and every effect it invokes is declared there with its JSDoc, nothing is declared that the machine
// does not use, and every effect state is wired the one way the contract describes (error, retry, exit).
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { TRADE_EFFECTS, TRADE_EVENT_TYPES, tradeMachine } from '../../machines/index.ts';
import { machineDefinition } from '../../machines/trade.definition.ts';

const types = () => {
  const text = readFileSync(new URL('../../machines/trade.types.ts', import.meta.url), 'utf8');
  return ts.createSourceFile('trade.types.ts', text, ts.ScriptTarget.Latest, true);
};

const jsDocIn = (text: string): string | null => /\/\*\*([\s\S]*?)\*\//.exec(text)?.[1]?.trim() || null;

/** The members of a union type alias of events, by their `type`, each with the JSDoc written above it. */
function documentedEvents(source: ts.SourceFile, alias: string): Map<string, string | null> {
  const declaration = source.statements.find(
    (s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === alias,
  );
  if (!declaration || !ts.isUnionTypeNode(declaration.type)) throw new Error(`${alias} is not a union`);
  const found = new Map<string, string | null>();
  let from = declaration.type.getFullStart();
  for (const member of declaration.type.types) {
    // TypeScript attaches no JSDoc to a union member: the comment is the text since the previous member.
    const doc = jsDocIn(source.text.slice(from, member.getStart()));
    from = member.getEnd();
    const type = ts.isTypeLiteralNode(member)
      ? member.members.find((m) => m.name?.getText() === 'type')
      : undefined;
    const literal = type && ts.isPropertySignature(type) ? type.type?.getText() : undefined;
    if (literal === undefined) throw new Error(`${alias} has a member without a literal type`);
    found.set(literal.slice(1, -1), doc);
  }
  return found;
}

/** The members of an interface, each with its JSDoc. */
function documentedMembers(source: ts.SourceFile, name: string): Map<string, string | null> {
  const declaration = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name,
  );
  if (!declaration) throw new Error(`no interface ${name}`);
  return new Map(
    declaration.members.map((m) => [m.name?.getText() ?? '', jsDocIn(m.getFullText()) as string | null]),
  );
}

const jsDocOf = (source: ts.SourceFile, name: string): string => {
  const declaration = source.statements.find(
    (s) => (ts.isTypeAliasDeclaration(s) || ts.isInterfaceDeclaration(s)) && s.name.text === name,
  );
  return (declaration && jsDocIn(declaration.getFullText())) ?? '';
};

// Read inside each test, never at collection: mutation testing activates a mutant only once tests run.
const definition = () => machineDefinition();
const sorted = (values: Iterable<string>) => [...new Set(values)].sort();

describe('the contract in trade.types.ts', () => {
  test('declares, with its JSDoc, exactly the events the machine takes', () => {
    const source = types();
    const documented = new Map([
      ...documentedEvents(source, 'TradeCommand'),
      ...documentedEvents(source, 'ChainFact'),
    ]);
    const taken = definition()
      .transitions.filter((t) => t.kind === 'event')
      .map((t) => t.event ?? '');
    expect(sorted(documented.keys())).toEqual(sorted(taken));
    expect(sorted(TRADE_EVENT_TYPES)).toEqual(sorted(taken));
    for (const [event, doc] of documented) expect({ event, doc }).toEqual({ event, doc: expect.any(String) });
  });

  test('declares, with its JSDoc, exactly the effects the machine invokes', () => {
    const documented = documentedMembers(types(), 'TradeEffects');
    const invoked = definition().states.flatMap((s) => s.invoke.map((i) => i.src));
    expect(sorted(documented.keys())).toEqual(sorted(invoked));
    expect(sorted(TRADE_EFFECTS)).toEqual(sorted(invoked));
    for (const [effect, doc] of documented)
      expect({ effect, doc }).toEqual({ effect, doc: expect.any(String) });
  });

  test('explains every tag and every wake-up deadline a state declares', () => {
    const source = types();
    const states = definition().states;
    for (const tag of new Set(states.flatMap((s) => s.tags))) {
      expect(jsDocOf(source, 'TradeTag')).toContain(`\`${tag}\``);
    }
    const deadlines = states.flatMap((s) => (s.meta?.wakeAt === undefined ? [] : [String(s.meta.wakeAt)]));
    expect(deadlines.length).toBeGreaterThan(0);
    const declared = source.statements.find(
      (s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === 'TradeDeadline',
    );
    for (const deadline of deadlines) expect(declared?.type.getText()).toContain(`'${deadline}'`);
  });
});

describe('every effect state, as trade.types.ts describes it', () => {
  const retried = () => definition().states.filter((s) => s.tags.includes('effect'));

  test('runs one effect, named as its actor', () => {
    expect(retried().length).toBeGreaterThan(0);
    for (const state of retried()) {
      expect(state.invoke).toEqual([{ id: state.invoke[0]?.src, src: expect.any(String) }]);
    }
  });

  test('records a failure, retries it in place once due, and forgets it on leaving', () => {
    const { transitions } = definition();
    for (const state of retried()) {
      const effect = state.invoke[0]?.src;
      const from = transitions.filter((t) => t.source === state.id);
      expect(from.filter((t) => t.kind === 'error')).toEqual([
        {
          source: state.id,
          kind: 'error',
          event: `xstate.error.actor.${effect}`,
          actor: effect,
          targets: [],
          guard: null,
          reenter: false,
          actions: ['recordEffectError'],
        },
      ]);
      expect(from.filter((t) => t.event === 'RETRY_EFFECT')).toEqual([
        {
          source: state.id,
          kind: 'event',
          event: 'RETRY_EFFECT',
          actor: null,
          targets: [state.id],
          guard: 'effectRetryDue',
          reenter: true,
          actions: ['markRetryRunning'],
        },
      ]);
      expect(state).toMatchObject({ type: 'atomic', exit: ['forgetEffectFailure'], entry: [] });
    }
  });

  test('records a failure against the effect that failed', () => {
    for (const state of retried()) {
      const effect = state.invoke[0]?.src ?? '';
      const onError = tradeMachine.getStateNodeById(state.id).transitions.get(`xstate.error.actor.${effect}`);
      expect(onError?.[0]?.actions).toEqual([{ type: 'recordEffectError', params: { effect } }]);
    }
  });
});
