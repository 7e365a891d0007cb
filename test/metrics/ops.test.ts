// The operators' files stay true to the service: every metric the alert rules and the Grafana dashboard name
// is one GET /metrics exposes, the dashboard's queries are PromQL on a datasource variable, and every alert
// is explained in the operations guide (docs/operations.md).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rootPath } from '../../src/paths.ts';
import { startService, type TestService } from '../support/service.ts';
import { parseExposition } from './exposition.ts';

const ALERTS = readFileSync(rootPath('ops', 'prometheus', 'alerts.yml'), 'utf8');
const OPERATIONS = readFileSync(rootPath('docs', 'operations.md'), 'utf8');

interface Target {
  expr: string;
  datasource: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: Target[];
}
const DASHBOARD = JSON.parse(readFileSync(rootPath('ops', 'grafana', 'rfq-maker.json'), 'utf8')) as {
  uid: string;
  templating: { list: { name: string; type: string; query: unknown }[] };
  panels: Panel[];
};
const QUERIES = DASHBOARD.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));

/** Metric names in PromQL text (label names and functions are not followed by a selector or a range). */
const metricNames = (text: string) =>
  new Set([...text.matchAll(/\b((?:rfq_maker|nodejs|process)_[a-z0-9_]+)\b/g)].map((m) => m[1] as string));

let service: TestService;
let exposed: Set<string>;
beforeAll(async () => {
  service = await startService();
  const families = parseExposition((await service.app.inject('/metrics')).body);
  exposed = new Set(
    [...families.values()].flatMap((family) =>
      family.type === 'histogram'
        ? ['_bucket', '_sum', '_count'].map((suffix) => family.name + suffix)
        : [family.name],
    ),
  );
});
afterAll(async () => service.dispose());

describe('the alert rules and the dashboard', () => {
  test('name only metrics the service exposes', () => {
    const named = new Set([...metricNames(ALERTS), ...QUERIES.flatMap((q) => [...metricNames(q)])]);
    expect(named.size).toBeGreaterThan(20);
    for (const name of named) expect(exposed.has(name), name).toBe(true);
  });

  test('the dashboard uses every family of the service', () => {
    const used = new Set(QUERIES.flatMap((q) => [...metricNames(q)]));
    const families = [...exposed].filter(
      (n) => n.startsWith('rfq_maker_') && !/_(bucket|sum|count)$/.test(n),
    );
    const shown = (family: string) =>
      ['', '_bucket', '_sum', '_count'].some((suffix) => used.has(family + suffix));
    for (const family of families) {
      if (family === 'rfq_maker_info') continue; // its instances feed the instance variable
      expect(shown(family), family).toBe(true);
    }
  });

  test('the dashboard queries its datasource variable, with panels that do not overlap', () => {
    expect(DASHBOARD.templating.list.find((v) => v.name === 'datasource')).toMatchObject({
      type: 'datasource',
      query: 'prometheus',
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template
    const variable = '${datasource}';
    const panels = DASHBOARD.panels.filter((panel) => panel.type !== 'row');
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: variable });
      for (const target of panel.targets ?? []) expect(target.datasource.uid, panel.title).toBe(variable);
    }
    expect(new Set(DASHBOARD.panels.map((panel) => panel.id)).size).toBe(DASHBOARD.panels.length);
    const cells = new Set<string>();
    for (const { title, gridPos: g } of DASHBOARD.panels) {
      expect(g.x + g.w, title).toBeLessThanOrEqual(24);
      for (let x = g.x; x < g.x + g.w; x++) {
        for (let y = g.y; y < g.y + g.h; y++) {
          expect(cells.has(`${x},${y}`), `${title} overlaps at ${x},${y}`).toBe(false);
          cells.add(`${x},${y}`);
        }
      }
    }
  });

  test.skipIf(spawnSync('promtool', ['--version']).status !== 0)(
    'every dashboard query is valid PromQL',
    () => {
      // As recording rules, with Grafana's variables as a query would see them.
      const rules = QUERIES.map((expr, i) => ({
        record: `dashboard:query_${i}`,
        expr: expr
          .replaceAll('$__rate_interval', '5m')
          .replaceAll('$__range', '6h')
          .replaceAll('$instance', '.*'),
      }));
      const dir = mkdtempSync(join(tmpdir(), 'dashboard-promql-'));
      try {
        const file = join(dir, 'rules.yml');
        writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules }] }));
        const out = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
        expect(out.status, `${out.stdout}${out.stderr}`).toBe(0);
        expect(out.stdout).toContain(`${rules.length} rules found`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  test('the operations guide explains every alert', () => {
    const alerts = [...ALERTS.matchAll(/^\s+- alert: (\w+)$/gm)].map((m) => m[1] as string);
    expect(alerts.length).toBeGreaterThanOrEqual(10);
    const start = OPERATIONS.indexOf('\n## Metrics and alerts');
    expect(start).toBeGreaterThan(0);
    const operators = OPERATIONS.slice(start, OPERATIONS.indexOf('\n## ', start + 1));
    for (const alert of alerts) expect(operators, alert).toContain(`**${alert}**`);
  });
});
