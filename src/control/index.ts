// Front door of the control plane: what an operator may change live (fields.ts), the settings in force as
// pure functions of the config file and the stored overrides (settings.ts), and the plane that changes
// them, durably and audited, on every instance (plane.ts). Routes: src/http/routes/desk.ts; the CLI:
// scripts/desk.ts.
export {
  DESK_FIELDS,
  type DeskField,
  type FieldKind,
  fieldsOf,
  HEDGING_FIELDS,
  type HedgingField,
  PAIR_FIELDS,
  type PairField,
  pairId,
  parsePairId,
  parseTargetKey,
  type Target,
  targetKey,
} from './fields.ts';
export { ControlPlane, type ControlPlaneOptions, type ControlView, type SettingsListener } from './plane.ts';
export {
  ControlError,
  type DeskSettings,
  type HedgedView,
  livePairs,
  type PairView,
  planChange,
  resolveSettings,
  type SettingsView,
  viewOf,
} from './settings.ts';
