// Schemas of the Desk group (/v1/desk): the settings an operator changes live, each field the config file's
// own (its schema's validators, reused), a null putting the config file's value back; the settings in force
// with the overrides that make them; and the change log.
import Type from 'typebox';
import { HedgedAssetConfigSchema, PairConfigSchema } from '../../config/index.ts';
import { DateTime, Nullable } from '../schemas.ts';
import { AccessTokenQuery } from './operator.ts';

/** A field of the config file's, or null: the override removed (the file's value applies again). */
const orDefault = <T extends object>(schema: T) => Type.Optional(Nullable({ ...schema }));
const pair = PairConfigSchema.properties;
const hedged = HedgedAssetConfigSchema.properties;

const CHANGE = { additionalProperties: false, minProperties: 1 } as const;

export const DeskChangeBody = Type.Object(
  {
    paused: orDefault(
      Type.Boolean({ description: 'the kill switch: no pair quotes or starts a settlement' }),
    ),
    sourcing_enabled: orDefault(
      Type.Boolean({ description: 'sourcing.enabled: quote outputs beyond the free inventory' }),
    ),
    hedging_enabled: orDefault(
      Type.Boolean({ description: 'hedging.enabled: swap assets back into their band' }),
    ),
  },
  { ...CHANGE, title: 'DeskChange' },
);

export const PairChangeBody = Type.Object(
  {
    paused: orDefault(pair.paused),
    base_spread_bps: orDefault(pair.base_spread_bps),
    min_input: orDefault(pair.min_input),
    max_input: orDefault(pair.max_input),
    max_expiry_seconds: orDefault(pair.max_expiry_seconds),
    maker_timelock_seconds: orDefault(pair.maker_timelock_seconds),
  },
  { ...CHANGE, title: 'PairChange' },
);

export const HedgingChangeBody = Type.Object(
  {
    target: orDefault(hedged.target),
    band: orDefault(hedged.band),
    band_bps: orDefault(hedged.band_bps),
    max_clip: orDefault(hedged.max_clip),
    min_clip: orDefault(hedged.min_clip),
  },
  { ...CHANGE, title: 'HedgingChange' },
);

export const PairParams = Type.Object({
  pair: Type.String({
    pattern: '^[A-Za-z0-9]{1,12}-[A-Za-z0-9]{1,12}$',
    description: 'a directed pair, its two symbols joined by a hyphen: SOL-USDC',
  }),
});

export const HedgedParams = Type.Object({
  asset: Type.String({ pattern: '^[A-Za-z0-9]{1,12}$', description: 'a hedged asset’s symbol' }),
});

/** A value as the settings hold it: a flag, a count of bps or seconds, or a decimal in display units. */
const SettingValue = Type.Union([Type.Boolean(), Type.Integer(), Type.String()]);

export const PairSettingsSchema = Type.Object(
  {
    pair: Type.String({ description: 'SOL-USDC' }),
    input_asset: Type.String(),
    output_asset: Type.String(),
    paused: Type.Boolean({ description: 'the pair’s own pause (the desk’s is `paused` above)' }),
    base_spread_bps: Type.Integer(),
    min_input: Type.String({ description: 'display units' }),
    max_input: Type.String({ description: 'display units' }),
    max_expiry_seconds: Type.Integer({ description: 'the longest quote it gives' }),
    maker_timelock_seconds: Type.Integer({
      description: 'the maker HTLC expiry of its trades, from the maker lock',
    }),
  },
  { title: 'PairSettings' },
);

export const HedgedSettingsSchema = Type.Object(
  {
    asset: Type.String(),
    target: Type.String({ description: 'display units' }),
    band: Type.String({ description: 'display units (from band_bps when that is set)' }),
    band_bps: Nullable(Type.Integer()),
    max_clip: Type.String(),
    min_clip: Type.String(),
  },
  { title: 'HedgedSettings' },
);

export const OverrideSchema = Type.Object(
  {
    target: Type.String({ description: 'desk, pair:SOL-USDC or hedging:SOL' }),
    field: Type.String(),
    value: SettingValue,
    seq: Type.Integer({ description: 'the change that set it' }),
    at: DateTime,
    actor: Type.String({ description: 'the name of the operator token it was set with' }),
  },
  { title: 'DeskOverride' },
);

export const DeskViewSchema = Type.Object(
  {
    paused: Type.Boolean({ description: 'the kill switch: every pair stopped' }),
    sourcing_enabled: Type.Boolean(),
    hedging_enabled: Nullable(Type.Boolean({ description: 'null: the config has no hedging section' })),
    pairs: Type.Array(PairSettingsSchema),
    hedging: Type.Array(HedgedSettingsSchema),
    overrides: Type.Array(OverrideSchema, {
      description: 'what is set over the config file (the boot default), each with who set it and when',
    }),
    applied_seq: Type.Integer({ minimum: 0, description: 'the newest change this instance has applied' }),
    problem: Nullable(
      Type.String({ description: 'why the stored overrides are not all in force (only their pauses are)' }),
    ),
  },
  { title: 'DeskSettings' },
);

export const DeskChangeRecordSchema = Type.Object(
  {
    seq: Type.Integer({ minimum: 1 }),
    at: DateTime,
    actor: Type.String({ description: 'the name of the operator token the change came with' }),
    run_id: Type.String({ format: 'uuid', description: 'the instance’s run that made it' }),
    target: Type.String(),
    field: Type.String(),
    before: Nullable(SettingValue),
    after: Nullable(SettingValue),
    override: Type.Union([SettingValue, Type.Null()], {
      description: 'the override it left in force; null: none, the config file’s value applies',
    }),
  },
  { title: 'DeskChangeRecord' },
);

export const ChangeAnswerSchema = Type.Object({
  changes: Type.Array(DeskChangeRecordSchema, {
    description: 'what the request changed (none when everything already was so)',
  }),
  desk: DeskViewSchema,
});

export const ChangeLogQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  // At most 2^53 − 1: exact as a JSON number, and within PostgreSQL's bigint (a larger one was a 500 there).
  before: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'changes before this seq (the next page)',
    }),
  ),
  ...AccessTokenQuery,
});

export const ChangeLogSchema = Type.Object({
  changes: Type.Array(DeskChangeRecordSchema, { description: 'newest first' }),
  next_before: Nullable(Type.Integer({ description: 'the next page’s `before`; null: no more' })),
});
