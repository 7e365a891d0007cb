// The desk CLI's parts, each on its own: the command line read into a request against the service's desk
// routes (src/http/routes/desk.ts), values typed by the control plane's own field table (src/control/), and
// the answers printed for a person. scripts/desk.ts runs them; the tests drive the whole as a process.
import { parseArgs } from 'node:util';
import { type FieldKind, fieldsOf, parsePairId } from '../../src/control/fields.ts';

export const USAGE = `usage: npm run desk -- <command> [--url <service>] [--token <operator token>]

  pause --all | pause <IN/OUT>        the kill switch, or one pair (SOL/USDC, SOL-USDC)
  resume --all | resume <IN/OUT>      lift it (pairs paused on their own stay paused), or resume one pair
  set <target> <field>=<value> ...    target: a pair (SOL/USDC), hedging.<ASSET>, or desk;
                                      value "default" puts the config file's value back
  show                                the settings in force and the overrides, with who set them
  log [--limit <n>]                   the change log, newest first

  --url defaults to RFQ_MAKER_URL, else http://127.0.0.1:8080; the token to OPERATOR_TOKEN.`;

/** A usage error: the command line is not one the CLI knows (exit 2). */
export class UsageError extends Error {}

export interface Request {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: Record<string, unknown>;
  /** How the answer is printed. */
  print: 'changes' | 'show' | 'log';
}

export interface Invocation {
  url: string;
  token: string | null;
  request: Request;
}

/** The command line (after `--`) and the environment, as the request it asks for. */
export function parseCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Invocation {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  const url = (values.url ?? env.RFQ_MAKER_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const token = values.token ?? (env.OPERATOR_TOKEN || null);
  return { url, token, request: requestOf(command, rest, values) };
}

const parse = (argv: readonly string[]) =>
  parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      all: { type: 'boolean', default: false },
      limit: { type: 'string' },
    },
  });

function requestOf(
  command: string | undefined,
  args: string[],
  flags: { all: boolean; limit?: string | undefined },
): Request {
  switch (command) {
    case 'pause':
    case 'resume': {
      if (flags.all) {
        if (args.length > 0) throw new UsageError(`${command} --all takes no pair`);
        return { method: 'POST', path: `/v1/desk/${command}`, print: 'changes' };
      }
      if (args.length !== 1) throw new UsageError(`${command} takes one pair (SOL/USDC), or --all`);
      return {
        method: 'POST',
        path: `/v1/desk/pairs/${pairPath(args[0] as string)}/${command}`,
        print: 'changes',
      };
    }
    case 'set': {
      const [target, ...assignments] = args;
      if (target === undefined || assignments.length === 0) {
        throw new UsageError('set takes a target and at least one field=value');
      }
      const { path, kind } = targetOf(target);
      const fields = fieldsOf(kind);
      const body: Record<string, unknown> = {};
      for (const assignment of assignments) {
        const at = assignment.indexOf('=');
        if (at < 1) throw new UsageError(`not a field=value: ${assignment}`);
        const field = assignment.slice(0, at);
        const fieldKind = fields[field];
        if (fieldKind === undefined) {
          throw new UsageError(`${field} is not a field of ${target}: ${Object.keys(fields).join(', ')}`);
        }
        body[field] = typedValue(assignment.slice(at + 1), fieldKind, field);
      }
      return { method: 'PATCH', path, body, print: 'changes' };
    }
    case 'show':
      if (args.length > 0) throw new UsageError('show takes no argument');
      return { method: 'GET', path: '/v1/desk', print: 'show' };
    case 'log': {
      if (args.length > 0) throw new UsageError('log takes no argument');
      const limit = flags.limit ?? '50';
      if (!/^[1-9][0-9]{0,2}$/.test(limit) || Number(limit) > 500) {
        throw new UsageError('--limit is a number from 1 to 500');
      }
      return { method: 'GET', path: `/v1/desk/changes?limit=${limit}`, print: 'log' };
    }
    case undefined:
      throw new UsageError('no command');
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}

function pairPath(text: string): string {
  const pair = parsePairId(text);
  if (!pair) throw new UsageError(`not a pair: ${text} (write SOL/USDC)`);
  return `${pair.input}-${pair.output}`;
}

function targetOf(text: string): { path: string; kind: 'desk' | 'pair' | 'hedging' } {
  if (text === 'desk') return { path: '/v1/desk', kind: 'desk' };
  const hedged = /^hedging[.:]([A-Za-z0-9]{1,12})$/.exec(text);
  if (hedged) return { path: `/v1/desk/hedging/${hedged[1]}`, kind: 'hedging' };
  return { path: `/v1/desk/pairs/${pairPath(text)}`, kind: 'pair' };
}

/** A value as its field's kind types it; "default" (or "null"): the config file's value again. */
export function typedValue(text: string, kind: FieldKind, field: string): unknown {
  if (text === 'default' || text === 'null') return null;
  switch (kind) {
    case 'boolean': {
      if (['true', 'on', 'yes'].includes(text)) return true;
      if (['false', 'off', 'no'].includes(text)) return false;
      throw new UsageError(`${field} is on or off (true/false), not ${text}`);
    }
    case 'integer':
      if (!/^[0-9]{1,9}$/.test(text)) throw new UsageError(`${field} is a whole number, not ${text}`);
      return Number(text);
    case 'decimal':
      if (!/^[0-9]+(\.[0-9]+)?$/.test(text)) throw new UsageError(`${field} is a decimal, not ${text}`);
      return text;
  }
}

type Json = ReturnType<typeof JSON.parse>;

const shown = (value: unknown) => (value === null || value === undefined ? '(file)' : String(value));

/** What a person reads of a successful answer. */
export function render(print: Request['print'], answer: Json): string {
  switch (print) {
    case 'changes': {
      const changes = answer.changes as Json[];
      if (changes.length === 0) return 'nothing to change: it already was so';
      return changes
        .map((c) => `#${c.seq} ${c.target} ${c.field}: ${shown(c.before)} -> ${shown(c.after)}`)
        .join('\n');
    }
    case 'log': {
      const changes = answer.changes as Json[];
      if (changes.length === 0) return 'no changes';
      return changes
        .map(
          (c) =>
            `#${c.seq} ${c.at} ${c.actor}: ${c.target} ${c.field} ${shown(c.before)} -> ${shown(c.after)}` +
            (c.override === null ? ' (the file’s value)' : ''),
        )
        .join('\n');
    }
    case 'show':
      return renderDesk(answer);
  }
}

function renderDesk(desk: Json): string {
  const overridden = new Set((desk.overrides as Json[]).map((o) => `${o.target} ${o.field}`));
  const mark = (target: string, field: string) => (overridden.has(`${target} ${field}`) ? '*' : '');
  const lines = [
    `desk: ${desk.paused ? 'PAUSED (kill switch)' : 'trading'}${mark('desk', 'paused')}; ` +
      `sourcing ${desk.sourcing_enabled ? 'on' : 'off'}${mark('desk', 'sourcing_enabled')}; ` +
      `hedging ${desk.hedging_enabled === null ? 'not configured' : desk.hedging_enabled ? 'on' : 'off'}${mark('desk', 'hedging_enabled')}`,
    'pairs:',
  ];
  for (const p of desk.pairs as Json[]) {
    const t = `pair:${p.pair}`;
    lines.push(
      `  ${`${p.input_asset}/${p.output_asset}`.padEnd(12)} ${p.paused ? 'paused' : 'live  '}${mark(t, 'paused')} ` +
        `spread ${p.base_spread_bps}${mark(t, 'base_spread_bps')} bps, input ${p.min_input}${mark(t, 'min_input')}` +
        `..${p.max_input}${mark(t, 'max_input')}, quotes ≤ ${p.max_expiry_seconds}${mark(t, 'max_expiry_seconds')} s, ` +
        `maker timelock ${p.maker_timelock_seconds}${mark(t, 'maker_timelock_seconds')} s`,
    );
  }
  if ((desk.hedging as Json[]).length > 0) lines.push('hedging:');
  for (const h of desk.hedging as Json[]) {
    const t = `hedging:${h.asset}`;
    lines.push(
      `  ${String(h.asset).padEnd(6)} target ${h.target}${mark(t, 'target')}, band ${h.band}` +
        `${mark(t, 'band')}${h.band_bps === null ? '' : ` (${h.band_bps} bps${mark(t, 'band_bps')})`}, ` +
        `clips ${h.min_clip}${mark(t, 'min_clip')}..${h.max_clip}${mark(t, 'max_clip')}`,
    );
  }
  const overrides = desk.overrides as Json[];
  lines.push(overrides.length === 0 ? 'overrides: none (the config file applies)' : 'overrides (*):');
  for (const o of overrides)
    lines.push(`  ${o.target} ${o.field} = ${o.value}  (#${o.seq}, ${o.actor}, ${o.at})`);
  if (desk.problem) lines.push(`problem: ${desk.problem}`);
  return lines.join('\n');
}

/** The error envelope as a person reads it. */
export function renderError(status: number, body: Json): string {
  const error = body?.error;
  if (!error) return `HTTP ${status}`;
  return [
    `refused (${status} ${error.code}): ${error.message}`,
    ...(error.details ?? []).map((d: string) => `  ${d}`),
  ].join('\n');
}
