// Front door of the statecharts: the trade machine and its pure companions.
export * from './trade.context.ts';
export * from './trade.deadlines.ts';
export * from './trade.machine.ts';
export * from './trade.rules.ts';
export * from './trade.snapshot.ts';
export * from './trade.types.ts';
export * from './trade.upgrade.ts';
