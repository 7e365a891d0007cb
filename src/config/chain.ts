// The chain the service settles on: the embedded one, or a cluster's JSON-RPC endpoints with the maker's
// key and its priority fees.
import { ConfigError, checkAddress } from './fields.ts';
import type { ConfigFile } from './schema.ts';
import type { ChainConfig, ChainTimingConfig } from './types.ts';

/** The chain block: the embedded chain, or an rpc cluster with its endpoints and fees. */
export function resolveChain(raw: ConfigFile['chain']): ChainConfig {
  const chainUrls = raw.kind === 'rpc' ? rpcUrls(raw) : [];
  const chain: ChainConfig =
    raw.kind === 'embedded'
      ? {
          kind: 'embedded',
          programId: checkAddress(raw.program_id ?? null, 'chain.program_id'),
          timing: raw.timing ? resolveTiming(raw.timing) : null,
        }
      : {
          kind: 'rpc',
          url: chainUrls[0] as string,
          urls: chainUrls,
          wsUrl: raw.ws_url ?? null,
          maxSlotLag: raw.max_slot_lag ?? 25,
          programId: checkAddress(raw.program_id, 'chain.program_id') as string,
          makerKeypairPath: raw.maker_keypair_path,
          priorityFeeMicroLamports: raw.priority_fee_micro_lamports ?? 10_000,
          maxPriorityFeeMicroLamports:
            raw.max_priority_fee_micro_lamports ?? 100 * (raw.priority_fee_micro_lamports ?? 10_000),
          priorityFeeRampSeconds: raw.priority_fee_ramp_seconds ?? 120,
        };
  if (chain.kind === 'rpc' && chain.maxPriorityFeeMicroLamports < chain.priorityFeeMicroLamports) {
    throw new ConfigError(
      'chain.max_priority_fee_micro_lamports',
      'must not be below priority_fee_micro_lamports',
    );
  }
  return chain;
}

/** chain.timing: a cluster's lags by default (400 ms slots, confirmed 2 slots on, finalized 32 on). */
function resolveTiming(raw: {
  slot_ms?: number;
  confirmation_slots?: number;
  finalization_slots?: number;
}): ChainTimingConfig {
  const timing = {
    slotMs: raw.slot_ms ?? 400,
    confirmationSlots: raw.confirmation_slots ?? 2,
    finalizationSlots: raw.finalization_slots ?? 32,
  };
  if (timing.finalizationSlots < timing.confirmationSlots) {
    throw new ConfigError(
      'chain.timing.finalization_slots',
      'must not be below confirmation_slots: nothing is finalized before it is confirmed',
    );
  }
  return timing;
}

/** chain.url or chain.urls (not both), each a URL, none twice. */
function rpcUrls(raw: { url?: string; urls?: string[] }): string[] {
  if (raw.url !== undefined && raw.urls !== undefined) {
    throw new ConfigError('chain.urls', 'give url or urls, not both');
  }
  const field = raw.urls ? (i: number) => `chain.urls[${i}]` : () => 'chain.url';
  const urls = raw.urls ?? (raw.url !== undefined ? [raw.url] : []);
  if (urls.length === 0) throw new ConfigError('chain.url', 'an rpc chain needs url or urls');
  const seen = new Set<string>();
  for (const [i, url] of urls.entries()) {
    let href: string;
    try {
      href = new URL(url).href;
    } catch {
      throw new ConfigError(field(i), 'not a URL');
    }
    if (seen.has(href)) throw new ConfigError(field(i), 'the same endpoint twice');
    seen.add(href);
  }
  return urls;
}
