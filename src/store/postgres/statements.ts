// Every repository's named statements in one namespace: a name is prepared once per connection, so two
// repositories must never give one name two texts (checked here as the module loads). The plan tests
// (test/store/plans.test.ts) read them; nothing runs them from here.
import { DESK_STATEMENTS } from './desk.ts';
import { EVENT_STATEMENTS } from './events.ts';
import { FENCE_STATEMENTS } from './fence.ts';
import { HEDGE_STATEMENTS } from './hedges.ts';
import { QUOTE_STATEMENTS } from './quotes.ts';
import { REST_INDEX_STATEMENTS } from './rest-index.ts';
import { RUN_STATEMENTS } from './runs.ts';
import { TRADE_STATEMENTS } from './trades.ts';
import { TRANSFER_STATEMENTS } from './transfers.ts';

const CATALOGUES = [
  QUOTE_STATEMENTS,
  TRADE_STATEMENTS,
  REST_INDEX_STATEMENTS,
  FENCE_STATEMENTS,
  EVENT_STATEMENTS,
  HEDGE_STATEMENTS,
  TRANSFER_STATEMENTS,
  DESK_STATEMENTS,
  RUN_STATEMENTS,
];

const seen = new Set<string>();
for (const name of CATALOGUES.flatMap((catalogue) => Object.keys(catalogue))) {
  if (seen.has(name)) throw new Error(`two PostgreSQL statements are named ${name}`);
  seen.add(name);
}

/** The fixed statements by name, for the plan tests: read, never run, there. */
export const POSTGRES_STATEMENTS = Object.assign({}, ...CATALOGUES) as typeof QUOTE_STATEMENTS &
  typeof TRADE_STATEMENTS &
  typeof REST_INDEX_STATEMENTS &
  typeof FENCE_STATEMENTS &
  typeof EVENT_STATEMENTS &
  typeof HEDGE_STATEMENTS &
  typeof TRANSFER_STATEMENTS &
  typeof DESK_STATEMENTS &
  typeof RUN_STATEMENTS;
