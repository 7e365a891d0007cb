// The desk's settings in force, as pure functions of the boot config and the stored overrides: the config
// file with the overrides written into it, resolved exactly as the file is at start (so a change is valid
// live iff the file with it would be valid at start), the desk's kill switch beside it, the view an
// operator reads, and what a change would do — its before and after — without doing it.
import { isDeepStrictEqual } from 'node:util';
import { type Config, ConfigError, type ConfigFile, type Pair, resolveConfig } from '../config/index.ts';
import { formatAmount } from '../money/index.ts';
import { fieldsOf, pairId, parseTargetKey, type Target, targetKey } from './fields.ts';

/** An override in force: the value a field takes instead of the config file's. */
export interface Override {
  target: string;
  field: string;
  value: unknown;
}

export interface DeskSettings {
  /** The config file resolved with the overrides in it: its pairs, hedging and sourcing are in force. */
  config: Config;
  /** The kill switch: no pair quotes or starts a settlement. */
  paused: boolean;
}

/** Why a change is refused: its target does not exist, or the config with it would not be valid. */
export class ControlError extends Error {
  constructor(
    readonly reason: 'pair_not_found' | 'asset_not_found' | 'invalid',
    message: string,
    /** For `invalid`: one line per offending field, as the config's validation names it. */
    readonly details: readonly string[] = [],
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type FileEntry = Record<string, unknown>;

/** The file's entry of the pair, found through the boot config's assets (the file may name a mint). */
function pairEntry(boot: Config, file: ConfigFile, input: string, output: string): FileEntry | null {
  const symbol = (name: string) => boot.assets.find(name)?.symbol.toUpperCase();
  const found = file.pairs.find(
    (p) => symbol(p.input) === input.toUpperCase() && symbol(p.output) === output.toUpperCase(),
  );
  return (found as FileEntry | undefined) ?? null;
}

function hedgedEntry(boot: Config, file: ConfigFile, asset: string): FileEntry | null {
  const assets = file.hedging?.assets ?? {};
  const key = Object.keys(assets).find(
    (k) => boot.assets.find(k)?.symbol.toUpperCase() === asset.toUpperCase(),
  );
  return key === undefined ? null : (assets[key] as FileEntry);
}

/**
 * The config file with the overrides written into it (a copy), in their order. An override whose target
 * the file no longer has is left out. A band replaces a band_bps and the other way round: an entry has one.
 */
export function applyOverrides(boot: Config, overrides: readonly Override[]): ConfigFile {
  const file = structuredClone(boot.file) as Mutable<ConfigFile>;
  for (const { target: key, field, value } of overrides) {
    const target = parseTargetKey(key);
    if (target === null) continue;
    if (target.kind === 'desk') {
      if (field === 'sourcing_enabled') file.sourcing = { ...file.sourcing, enabled: value as boolean };
      if (field === 'hedging_enabled' && file.hedging) {
        file.hedging = { ...file.hedging, enabled: value as boolean };
      }
      continue;
    }
    const entry =
      target.kind === 'pair'
        ? pairEntry(boot, file, target.input, target.output)
        : hedgedEntry(boot, file, target.asset);
    if (entry === null) continue;
    entry[field] = value;
    if (field === 'band') delete entry.band_bps;
    if (field === 'band_bps') delete entry.band;
  }
  return file;
}

/** The settings the overrides make; a ConfigError names the first field they leave invalid. */
export function resolveSettings(boot: Config, overrides: readonly Override[]): DeskSettings {
  const config = resolveConfig(applyOverrides(boot, overrides));
  const paused = overrides.some((o) => o.target === 'desk' && o.field === 'paused' && o.value === true);
  return { config, paused };
}

/**
 * The settings when the overrides together are not valid (the config file changed under them, or two
 * instances changed related fields at once): only the pauses are kept, which cannot be invalid — a pause
 * must never be lost to an unrelated problem.
 */
export function pausesOnly(overrides: readonly Override[]): Override[] {
  return overrides.filter((o) => o.field === 'paused');
}

/** The pairs quotes and settlement starts see: every pair paused while the desk is. */
export function livePairs(settings: DeskSettings): Pair[] {
  return settings.config.pairs.map((pair) =>
    settings.paused && !pair.paused ? { ...pair, paused: true } : pair,
  );
}

export interface PairView {
  pair: string;
  input_asset: string;
  output_asset: string;
  paused: boolean;
  base_spread_bps: number;
  min_input: string;
  max_input: string;
  max_expiry_seconds: number;
  maker_timelock_seconds: number;
}

export interface HedgedView {
  asset: string;
  target: string;
  band: string;
  band_bps: number | null;
  max_clip: string;
  min_clip: string;
}

/** The settings as an operator reads (and writes) them: the config file's names and units. */
export interface SettingsView {
  paused: boolean;
  sourcing_enabled: boolean;
  /** null: the config has no hedging section (nothing to switch on). */
  hedging_enabled: boolean | null;
  /** Each pair's own terms; `paused` is its own pause (the desk's is apart). */
  pairs: PairView[];
  hedging: HedgedView[];
}

export function viewOf(settings: DeskSettings): SettingsView {
  const { config } = settings;
  return {
    paused: settings.paused,
    sourcing_enabled: config.sourcing.enabled,
    hedging_enabled: config.hedging?.enabled ?? null,
    pairs: config.pairs.map((p) => ({
      pair: pairId(p.input.symbol, p.output.symbol),
      input_asset: p.input.symbol,
      output_asset: p.output.symbol,
      paused: p.paused,
      base_spread_bps: p.baseSpreadBps,
      min_input: formatAmount(p.minInputRaw, p.input.decimals),
      max_input: formatAmount(p.maxInputRaw, p.input.decimals),
      max_expiry_seconds: p.maxExpirySeconds,
      maker_timelock_seconds: p.makerTimelockSeconds,
    })),
    hedging: (config.hedging?.assets ?? []).map((h) => {
      const entry = hedgedEntry(config, config.file, h.asset.symbol);
      const decimals = h.asset.decimals;
      return {
        asset: h.asset.symbol,
        target: formatAmount(h.targetRaw, decimals),
        band: formatAmount(h.bandRaw, decimals),
        band_bps: typeof entry?.band_bps === 'number' ? entry.band_bps : null,
        max_clip: formatAmount(h.maxClipRaw, decimals),
        min_clip: formatAmount(h.minClipRaw, decimals),
      };
    }),
  };
}

/** The value a field of a target has in the view (null when the target has no such entry). */
function valueIn(view: SettingsView, target: Target, field: string): unknown {
  switch (target.kind) {
    case 'desk':
      return view[field as 'paused'] ?? null;
    case 'pair': {
      const id = pairId(target.input, target.output);
      return view.pairs.find((p) => p.pair === id)?.[field as 'paused'] ?? null;
    }
    case 'hedging':
      return view.hedging.find((h) => h.asset === target.asset)?.[field as 'band'] ?? null;
  }
}

/** The target named by an operator, with its symbols as the config spells them; ControlError if none. */
export function resolveTarget(boot: Config, target: Target): Target {
  switch (target.kind) {
    case 'desk':
      return target;
    case 'pair': {
      const input = boot.assets.find(target.input);
      const output = boot.assets.find(target.output);
      const pair = boot.pairs.find((p) => p.input === input && p.output === output);
      if (!pair) {
        throw new ControlError(
          'pair_not_found',
          `No configured pair ${pairId(target.input, target.output)}.`,
        );
      }
      return { kind: 'pair', input: pair.input.symbol, output: pair.output.symbol };
    }
    case 'hedging': {
      const asset = boot.assets.find(target.asset);
      const hedged = boot.hedging?.assets.find((h) => h.asset === asset);
      if (!hedged) {
        throw new ControlError('asset_not_found', `No hedged asset ${target.asset} in the config.`);
      }
      return { kind: 'hedging', asset: hedged.asset.symbol };
    }
  }
}

/** One field's change as the log records it. */
export interface PlannedChange {
  target: string;
  field: string;
  before: unknown;
  after: unknown;
  /** The override left in force; null: none (the config file's value applies). */
  override: unknown;
}

export interface Plan {
  /** The overrides in force after the change, in order. */
  overrides: Override[];
  settings: DeskSettings;
  /** Only the fields whose value or override the change moves: a change to what is already so is none. */
  changes: PlannedChange[];
}

/**
 * What setting `fields` of `target` (a value, or null: back to the config file's) would do to the settings
 * in force, validated as the config file is. Throws ControlError: an unknown target or field, or a
 * resulting config that would not be valid (nothing is changed then).
 */
export function planChange(
  boot: Config,
  current: { overrides: readonly Override[]; settings: DeskSettings },
  named: Target,
  fields: Readonly<Record<string, unknown>>,
): Plan {
  const target = resolveTarget(boot, named);
  const key = targetKey(target);
  const known = fieldsOf(target.kind);
  const unknown = Object.keys(fields).filter((f) => !(f in known));
  if (unknown.length > 0) {
    throw new ControlError(
      'invalid',
      `Not a field of ${key}.`,
      unknown.map((f) => `${f}: not one of ${Object.keys(known).join(', ')}`),
    );
  }
  if (target.kind === 'desk' && 'hedging_enabled' in fields && boot.file.hedging === undefined) {
    throw new ControlError('invalid', 'The config has no hedging section.', [
      'hedging_enabled: nothing to switch: the config file names no hedging targets',
    ]);
  }
  const touched = new Map<string, unknown>(Object.entries(fields));
  // An entry has a band or a band_bps: setting one drops an override of the other.
  if (target.kind === 'hedging') {
    if (fields.band != null && !('band_bps' in fields)) touched.set('band_bps', null);
    if (fields.band_bps != null && !('band' in fields)) touched.set('band', null);
  }
  const next = current.overrides.filter((o) => !(o.target === key && touched.has(o.field)));
  for (const [field, value] of touched) {
    if (value !== null && value !== undefined) next.push({ target: key, field, value });
  }
  let settings: DeskSettings;
  try {
    settings = resolveSettings(boot, next);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Named as the request names it when the config names one of the fields changed, else as the config does.
    const problem = error.message.replace(/^config [^:]+: /, '');
    const asked = [...touched.keys()].find((f) => error.field.endsWith(`.${f}`) || error.field === f);
    throw new ControlError('invalid', `The change would leave the config invalid: ${error.message}.`, [
      asked === undefined
        ? `${error.field}: ${problem}`
        : `body.${asked}: ${problem} (config ${error.field})`,
    ]);
  }
  const before = viewOf(current.settings);
  const after = viewOf(settings);
  const overrideOf = (list: readonly Override[], field: string) =>
    list.find((o) => o.target === key && o.field === field)?.value ?? null;
  const changes: PlannedChange[] = [];
  for (const field of touched.keys()) {
    const change = {
      target: key,
      field,
      before: valueIn(before, target, field),
      after: valueIn(after, target, field),
      override: overrideOf(next, field),
    };
    const unchanged =
      isDeepStrictEqual(change.before, change.after) &&
      isDeepStrictEqual(overrideOf(current.overrides, field), change.override);
    if (!unchanged) changes.push(change);
  }
  return { overrides: next, settings, changes };
}
