// Earlier answers to the same read, kept so the proxy can serve one as a lagging node would: the answer
// as it was some slots ago. The proxy's idea of "now" is the highest slot any answer has shown.

import type { Random } from './random.ts';

export interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

interface Kept {
  slot: number;
  result: unknown;
}

/** Answers kept per request, newest last; requests kept, least recently answered dropped first. */
const KEPT_PER_REQUEST = 8;
const REQUESTS_KEPT = 4_000;

const READS = /^(get[A-Z]\w*|isBlockhashValid)$/;
const NOT_WORTH_IT = new Set(['getHealth', 'getVersion', 'getGenesisHash', 'getIdentity']);

/** Reads a lagging node could answer from its past. */
export const isRead = (method: string) => READS.test(method) && !NOT_WORTH_IT.has(method);

export class AnswerHistory {
  private readonly kept = new Map<string, Kept[]>();
  /** The highest slot any answer showed: the proxy's present. */
  slot = 0;

  /** The read a request makes, whatever minContextSlot it asks for: a lagging node's answer is the same. */
  private static key(request: JsonRpcRequest): string {
    const params = (Array.isArray(request.params) ? request.params : []).map((param) => {
      if (!param || typeof param !== 'object' || Array.isArray(param) || !('minContextSlot' in param)) {
        return param;
      }
      const { minContextSlot: _, ...rest } = param as Record<string, unknown>;
      return rest;
    });
    return `${String(request.method)}\u0000${JSON.stringify(params)}`;
  }

  /** The slot an answer speaks for: its context's, or the slot a slot-valued answer names. */
  private slotOf(method: string, result: unknown): number | null {
    if (typeof result === 'number' && (method === 'getSlot' || method === 'getBlockHeight')) return result;
    if (result && typeof result === 'object') {
      const context = (result as { context?: { slot?: unknown } }).context;
      if (typeof context?.slot === 'number') return context.slot;
      const absolute = (result as { absoluteSlot?: unknown }).absoluteSlot;
      if (typeof absolute === 'number') return absolute;
    }
    return null;
  }

  remember(request: JsonRpcRequest, result: unknown): void {
    const method = String(request.method);
    const slot = this.slotOf(method, result);
    if (slot !== null && slot > this.slot) this.slot = slot;
    if (!isRead(method)) return;
    const key = AnswerHistory.key(request);
    const list = this.kept.get(key) ?? [];
    this.kept.delete(key);
    list.push({ slot: slot ?? this.slot, result });
    if (list.length > KEPT_PER_REQUEST) list.shift();
    this.kept.set(key, list);
    if (this.kept.size > REQUESTS_KEPT) {
      const oldest = this.kept.keys().next().value;
      if (oldest !== undefined) this.kept.delete(oldest);
    }
  }

  /** An earlier answer to this request from [minSlots, maxSlots] slots ago, or null if none was kept. */
  behind(request: JsonRpcRequest, minSlots: number, maxSlots: number, random: Random): Kept | null {
    const list = this.kept.get(AnswerHistory.key(request)) ?? [];
    const fits = list.filter((k) => this.slot - k.slot >= minSlots && this.slot - k.slot <= maxSlots);
    return fits.length === 0 ? null : random.pick(fits);
  }
}

/** The minContextSlot a read asks for (its config object, last parameter), if any. */
export function minContextSlotOf(request: JsonRpcRequest): number | null {
  const params = Array.isArray(request.params) ? request.params : [];
  for (const param of params) {
    if (param && typeof param === 'object' && !Array.isArray(param)) {
      const min = (param as { minContextSlot?: unknown }).minContextSlot;
      if (typeof min === 'number') return min;
    }
  }
  return null;
}
