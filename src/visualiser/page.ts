// The visualiser's page: the statechart drawn server-side from the machine's definition (layout.ts), with
// the page's own script and styles inlined, so that everything comes from this process and one request.
import { readFileSync } from 'node:fs';
import type { MachineDefinition } from '../../machines/trade.definition.ts';
import { rootPath } from '../paths.ts';
import { renderSvg } from './layout.ts';

const asset = (name: string) => readFileSync(rootPath('src', 'visualiser', name), 'utf8');

export interface VizOptions {
  /** How long the player shows each step of a history. */
  stepMs?: number;
}

/** The whole page; built once per process, it depends on nothing but the machine. */
export function vizPage(def: MachineDefinition, options: VizOptions = {}): string {
  const config = {
    machine: def.id,
    version: def.version,
    stepMs: options.stepMs ?? 700,
    // Events name public substates; the chart draws state paths (initiated.makerLocked is drawn at
    // initiated.redeeming.makerLocked).
    paths: Object.fromEntries(def.states.flatMap((s) => (s.substate === null ? [] : [[s.substate, s.path]]))),
    // The page matches history events to transitions by state path.
    transitions: def.transitions.map((t) => ({
      source: pathOf(def, t.source),
      event: t.event,
      targets: t.targets.map((id) => pathOf(def, id)),
    })),
  };
  // `</` cannot close the inline JSON script early once escaped.
  const json = JSON.stringify(config).replaceAll('</', '<\\/');
  const parts: Record<string, string> = {
    STYLE: asset('./viz.css'),
    VERSION: String(def.version),
    SVG: renderSvg(def),
    SCRIPT: asset('./viz.js'),
  };
  return asset('./page.html')
    .replace('"@CONFIG@"', () => json)
    .replace(/\/\*(STYLE|VERSION|SVG|CONFIG|SCRIPT)\*\//g, (_, key: string) => parts[key] ?? '');
}

const pathOf = (def: MachineDefinition, id: string) => (id === def.id ? '' : id.slice(def.id.length + 1));
