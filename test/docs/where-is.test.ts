// The newcomer's "where is X" table in docs/architecture.md is read here and held against the code: every
// route the service serves has a row; its handler is the function of that name Fastify runs for it; its
// schemas are the exports that route validates and answers with; its machine event is one the command
// it calls sends; its effects are those the machine enters on that event (each one the runtime provides);
// its store writes are write kinds of the store.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Fastify, { type RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TRADE_EFFECTS, TRADE_EVENT_TYPES, tradeMachine } from '../../machines/index.ts';
import type { ChainPort } from '../../src/chain/index.ts';
import { registerRoutes } from '../../src/http/routes/index.ts';
import { OperatorRoutes } from '../../src/http/routes/operator.ts';
import type { TypeBoxApp } from '../../src/http/typebox-app.ts';
import { ServiceMetrics } from '../../src/metrics/index.ts';
import { chainEffects, type EffectHooks } from '../../src/runtime/effects/index.ts';
import { startService, type TestService } from '../support/service.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface WhereIsRow {
  route: string;
  handler: string;
  schemas: string[];
  event: string;
  effects: string[];
  writes: string[];
}

const cell = (text: string) => text.replaceAll('`', '').trim();
const list = (text: string) =>
  cell(text)
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** The rows of the table under the "Where is X" heading (the first table after it). */
function whereIsTable(markdown: string): WhereIsRow[] {
  const start = markdown.indexOf('### Where is X');
  if (start < 0) throw new Error('docs/architecture.md has no "### Where is X" section');
  const lines = markdown.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: WhereIsRow[] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').slice(1, -1);
    if (cells.length !== 6) throw new Error(`a row of the where-is table has ${cells.length} cells: ${line}`);
    const [route, handler, schemas, event, effects, writes] = cells as [string, ...string[]];
    rows.push({
      route: cell(route),
      handler: cell(handler as string),
      schemas: list(schemas as string),
      event: cell(event as string),
      effects: cell(effects as string) === 'none' ? [] : list(effects as string),
      writes: cell(writes as string).startsWith('none') ? [] : list(writes as string),
    });
  }
  return rows;
}

/** `POST /v1/trades/{trade_id}/lock` as Fastify spells it: `POST /v1/trades/:trade_id/lock`. */
const fastifyRoute = (route: string) => route.replace(/\{(\w+)\}/g, ':$1');
const openApiRoute = (route: string) => route.replace(/:(\w+)/g, '{$1}');

/** The effects a state entered on `event` invokes: the targets, their initial descendants, what they pass through. */
function effectsEnteredOn(event: string): Set<string> {
  type Node = (typeof tradeMachine)['root'];
  const nodes: Node[] = [];
  const walk = (node: Node) => {
    nodes.push(node);
    for (const child of Object.values(node.states)) walk(child);
  };
  walk(tradeMachine.root);
  const queue = nodes.flatMap((node) => (node.transitions.get(event) ?? []).flatMap((t) => t.target ?? []));
  const seen = new Set<Node>();
  const effects = new Set<string>();
  for (let node = queue.pop(); node !== undefined; node = queue.pop()) {
    if (seen.has(node)) continue;
    seen.add(node);
    for (const invoke of node.invoke) if (typeof invoke.src === 'string') effects.add(invoke.src);
    queue.push(...(node.initial?.target ?? []), ...(node.always ?? []).flatMap((t) => t.target ?? []));
  }
  return effects;
}

/**
 * The store's write kinds: StoreWrite (src/store/writes.ts) joins each repository's writes, declared in the
 * repository's own file (the files writes.ts imports a `…Write` type from).
 */
const WRITE_FILES = [
  ...read('src/store/writes.ts').matchAll(/import type \{ \w+Write \} from '\.\/([\w-]+\.ts)'/g),
].map((m) => `src/store/${m[1]}`);
const WRITE_KINDS = new Set(
  WRITE_FILES.flatMap((file) => [...read(file).matchAll(/\{\s*kind: '(\w+)'/g)].map((m) => m[1])),
);

/** The runtime's top-level functions by name (a command's helpers: advanceRead, say). */
const RUNTIME_FUNCTIONS = new Map(
  ['commands.ts', 'scheduler.ts', 'watcher.ts'].flatMap((file) =>
    [...read(`src/runtime/${file}`).matchAll(/\n(?:export )?(?:async )?function (\w+)\([\s\S]*?\n\}\n/g)].map(
      (m) => [m[1] as string, m[0]] as const,
    ),
  ),
);

/** The text of a TradeCommands method, and of the runtime functions it calls by name (and they call). */
function commandText(method: string): string {
  const source = read('src/runtime/commands.ts');
  const start = source.search(new RegExp(`\\n  (?:async )?${method}\\(`));
  if (start < 0) throw new Error(`TradeCommands has no method ${method}`);
  const texts = [source.slice(start, source.indexOf('\n  }\n', start))];
  const seen = new Set<string>();
  for (let i = 0; i < texts.length; i++) {
    for (const [, name] of (texts[i] as string).matchAll(/\b(\w+)\(/g)) {
      const text = RUNTIME_FUNCTIONS.get(name as string);
      if (text !== undefined && !seen.has(name as string)) {
        seen.add(name as string);
        texts.push(text);
      }
    }
  }
  return texts.join('\n');
}

let service: TestService;
/** Every route registerRoutes adds, as Fastify was handed it. */
const routes = new Map<string, RouteOptions>();
let rows: WhereIsRow[];

beforeAll(async () => {
  rows = whereIsTable(read('docs/architecture.md'));
  service = await startService();
  const app = Fastify() as unknown as TypeBoxApp;
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') routes.set(`${method} ${openApiRoute(route.url)}`, route as RouteOptions);
    }
  });
  await registerRoutes(
    app,
    {
      config: service.config,
      version: 'test',
      run: { runId: service.runId, startedAt: new Date() },
      quotes: service.quotes,
      prices: service.prices,
      runtime: service.runtime,
      devChain: service.devChain,
      readiness: async () => [],
      tradable: () => true,
      metrics: new ServiceMetrics({ version: 'test', chain: service.chain.kind }),
      makerWallet: service.chain.makerWallet.toBase58(),
      control: service.control,
      inventory: async () => {
        throw new Error('not read');
      },
    },
    new OperatorRoutes(),
  );
  await app.ready();
  await app.close();
}, 120_000);
afterAll(async () => service?.dispose());

describe('the where-is table in docs/architecture.md', () => {
  test('has a row for every route the service registers, and for every operation of its OpenAPI document', async () => {
    const documented = rows.map((row) => row.route);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...routes.keys()].sort());
    const paths = (await service.app.inject('/v1/openapi.json')).json().paths as Record<string, object>;
    const operations = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const operation of operations) expect(documented).toContain(operation);
  });

  test('every route is served, and its handler is the named function of that file', () => {
    for (const row of rows) {
      const [method, url] = row.route.split(' ') as [string, string];
      expect(service.app.hasRoute({ method: method as 'GET', url: fastifyRoute(url) }), row.route).toBe(true);
      const [file, name] = row.handler.split(':') as [string, string];
      expect(existsSync(join(ROOT, file)), row.handler).toBe(true);
      expect(read(file), row.handler).toMatch(new RegExp(`async function ${name}\\(`));
      expect(routes.get(row.route)?.handler.name, row.route).toBe(name);
    }
  });

  test('its schemas are exports of the named files, and the very ones its route validates or answers with', async () => {
    for (const row of rows) {
      const schema = (routes.get(row.route)?.schema ?? {}) as Record<string, unknown>;
      const used = new Set<unknown>([
        schema.body,
        schema.params,
        schema.querystring,
        ...Object.values((schema.response ?? {}) as Record<string, unknown>),
      ]);
      for (const named of row.schemas) {
        if (named.startsWith('none')) continue;
        const [file, name] = named.split(':') as [string, string];
        const exports = (await import(join(ROOT, file))) as Record<string, unknown>;
        expect(exports[name], `${row.route}: ${named} is not exported`).toBeDefined();
        expect(used.has(exports[name]), `${row.route}: its route does not use ${named}`).toBe(true);
      }
    }
  });

  test('its machine event is one the command the handler calls sends, or none for a handler that sends none', () => {
    for (const row of rows) {
      const handler = routes.get(row.route)?.handler.toString() ?? '';
      const called = [...handler.matchAll(/commands\.(\w+)\(/g)].map((m) => m[1] as string);
      const text = called.map(commandText).join('\n');
      const command = called.join(', ');
      if (row.event.startsWith('none')) {
        for (const event of TRADE_EVENT_TYPES)
          expect(text, `${row.route} sends ${event}`).not.toContain(`'${event}'`);
      } else {
        expect(TRADE_EVENT_TYPES, row.route).toContain(row.event);
        expect(text, `${row.route} (commands.${command})`).toContain(`'${row.event}'`);
      }
    }
  });

  test('its effects are the runtime’s, exactly those the machine enters on that event', () => {
    const provided = Object.keys(chainEffects({} as ChainPort, {} as EffectHooks));
    expect([...provided].sort()).toEqual([...TRADE_EFFECTS].sort());
    for (const row of rows) {
      for (const effect of row.effects) expect(provided, row.route).toContain(effect);
      const entered = row.event.startsWith('none') ? [] : [...effectsEnteredOn(row.event)];
      expect([...row.effects].sort(), row.route).toEqual(entered.sort());
    }
  });

  test('its store writes are write kinds of the store; a machine event is stored as a transition', () => {
    for (const row of rows) {
      for (const write of row.writes) expect(WRITE_KINDS, row.route).toContain(write);
      if (!row.event.startsWith('none')) expect(row.writes, row.route).toContain('saveTransition');
    }
  });
});
