// The control plane's vocabulary, defined once: what an operator may change live, on which target, and of
// what kind each value is (the HTTP schemas, the plane and the desk CLI all read it). Every field but the
// desk's pause is a setting of the config file, under the same name, validated as the file is.

/** The whole desk: the kill switch, and the two swap activities. */
export const DESK_FIELDS = {
  paused: 'boolean',
  sourcing_enabled: 'boolean',
  hedging_enabled: 'boolean',
} as const;

/** A directed pair's terms (pairs[] of the config file): its pause, spread, size limits and lifetimes. */
export const PAIR_FIELDS = {
  paused: 'boolean',
  base_spread_bps: 'integer',
  min_input: 'decimal',
  max_input: 'decimal',
  max_expiry_seconds: 'integer',
  maker_timelock_seconds: 'integer',
} as const;

/** A hedged asset's band and clips (hedging.assets of the config file). */
export const HEDGING_FIELDS = {
  target: 'decimal',
  band: 'decimal',
  band_bps: 'integer',
  max_clip: 'decimal',
  min_clip: 'decimal',
} as const;

export type DeskField = keyof typeof DESK_FIELDS;
export type PairField = keyof typeof PAIR_FIELDS;
export type HedgingField = keyof typeof HEDGING_FIELDS;
export type FieldKind = 'boolean' | 'integer' | 'decimal';

/** What a change is about: the desk, one directed pair (its two symbols), or one hedged asset. */
export type Target =
  | { kind: 'desk' }
  | { kind: 'pair'; input: string; output: string }
  | { kind: 'hedging'; asset: string };

/** The fields of a target's kind, with the kind of each value. */
export function fieldsOf(target: Target['kind']): Readonly<Record<string, FieldKind>> {
  switch (target) {
    case 'desk':
      return DESK_FIELDS;
    case 'pair':
      return PAIR_FIELDS;
    case 'hedging':
      return HEDGING_FIELDS;
  }
}

/** A pair as routes and the CLI name it: its symbols joined by a hyphen (SOL-USDC; SOL/USDC is read too). */
export const pairId = (input: string, output: string) => `${input}-${output}`;

/** How a target is stored and shown: `desk`, `pair:SOL-USDC`, `hedging:SOL`. */
export function targetKey(target: Target): string {
  switch (target.kind) {
    case 'desk':
      return 'desk';
    case 'pair':
      return `pair:${pairId(target.input, target.output)}`;
    case 'hedging':
      return `hedging:${target.asset}`;
  }
}

/** The target a stored key names; null for one this build does not know. */
export function parseTargetKey(key: string): Target | null {
  if (key === 'desk') return { kind: 'desk' };
  const pair = /^pair:([A-Za-z0-9]{1,12})-([A-Za-z0-9]{1,12})$/.exec(key);
  if (pair) return { kind: 'pair', input: pair[1] as string, output: pair[2] as string };
  const hedged = /^hedging:([A-Za-z0-9]{1,12})$/.exec(key);
  if (hedged) return { kind: 'hedging', asset: hedged[1] as string };
  return null;
}

/** A pair as written by an operator: SOL-USDC or SOL/USDC (any case); null when it is neither. */
export function parsePairId(text: string): { input: string; output: string } | null {
  const m = /^([A-Za-z0-9]{1,12})[-/]([A-Za-z0-9]{1,12})$/.exec(text);
  return m ? { input: m[1] as string, output: m[2] as string } : null;
}
