// The process's own metrics (event-loop lag, CPU, memory, heap, GC, handles: prom-client's defaults),
// collected once per process however many services run in it: every service's exposition includes them.
// Per service they would add an event-loop monitor and a GC observer per instance that nothing can remove.
import { collectDefaultMetrics, Registry } from 'prom-client';

let shared: Registry | null = null;

export function processRegistry(): Registry {
  if (shared === null) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}
