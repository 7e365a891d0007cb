// The trade runtime: the run supervisor, its chain effects and the TradeResponse view.

export { MakerInventory } from './inventory.ts';
export { eventPayload, type RuntimeOptions, type SettlementResult, TradeRuntime } from './supervisor.ts';
export { nextAction, renderTrade, type TradeView } from './trade-view.ts';
