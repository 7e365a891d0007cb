// The place of the Gateway's transfers repository (issue 37 wires it): the maker's Circle Gateway transfers
// (src/gateway/) as durable records, with their write kinds beside them, as every other aggregate here has
// them (quotes.ts, trades.ts, events.ts, hedges.ts, desk.ts, runs.ts). When it comes: a `TransferWrite` union
// joined to StoreWrite (writes.ts), a `TransfersRepository` joined to StoreBase (port.ts), and each engine's
// interpretation in sqlite/transfers.ts and postgres/transfers.ts, committed in the same group commit as the
// trade transitions that depend on it. Nothing is stored for transfers yet: this file declares nothing.
export {};
