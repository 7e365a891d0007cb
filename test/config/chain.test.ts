// The config's chain section on rpc: one endpoint (url) or several (urls), and the lag an endpoint may
// have and still be believed that an account or signature does not exist.

import { describe, expect, test } from 'vitest';
import { resolveConfig } from '../../src/config/index.ts';
import { type ConfigDocument, defaultConfigDocument } from '../support/service.ts';
import { refusal } from './refusal.ts';

const PROGRAM = 'So11111111111111111111111111111111111111112';

const onRpc = (chain: Record<string, unknown>) => {
  const doc = defaultConfigDocument();
  doc.chain = { kind: 'rpc', program_id: PROGRAM, maker_keypair_path: 'k.json', ...chain };
  return doc;
};

const resolvedChain = (doc: ConfigDocument) => {
  const { chain } = resolveConfig(doc);
  if (chain.kind !== 'rpc') throw new Error('not an rpc chain');
  return chain;
};

describe('the rpc chain section', () => {
  test('url is a list of one endpoint; the lag tolerance defaults to 25 slots', () => {
    const chain = resolvedChain(onRpc({ url: 'http://127.0.0.1:8899' }));
    expect(chain.urls).toEqual(['http://127.0.0.1:8899']);
    expect(chain.url).toBe('http://127.0.0.1:8899');
    expect(chain.maxSlotLag).toBe(25);
    expect(chain.wsUrl).toBeNull();
  });

  test('urls lists several endpoints, the primary first, with their own lag tolerance', () => {
    const urls = ['https://rpc-a.example/key-1', 'https://rpc-b.example/?api-key=2', 'http://10.0.0.5:8899'];
    const chain = resolvedChain(onRpc({ urls, max_slot_lag: 50, ws_url: 'wss://rpc-a.example/ws' }));
    expect(chain.urls).toEqual(urls);
    expect(chain.url).toBe(urls[0]);
    expect(chain.maxSlotLag).toBe(50);
    expect(chain.wsUrl).toBe('wss://rpc-a.example/ws');
  });

  test.each<[string, Record<string, unknown>, RegExp]>([
    ['neither url nor urls', {}, /config chain\.url: an rpc chain needs url or urls/],
    [
      'both url and urls',
      { url: 'http://a.example', urls: ['http://b.example'] },
      /config chain\.urls: give url or urls, not both/,
    ],
    ['an empty list', { urls: [] }, /config chain/],
    [
      'the same endpoint twice (as URLs compare)',
      { urls: ['https://rpc.example/k', 'https://RPC.example:443/k'] },
      /config chain\.urls\[1\]: the same endpoint twice/,
    ],
    [
      'more than eight endpoints',
      { urls: Array.from({ length: 9 }, (_, i) => `https://rpc-${i}.example`) },
      /config chain/,
    ],
    ['an endpoint that is not http(s)', { urls: ['https://a.example', 'ftp://b.example'] }, /config chain/],
    [
      'a URL that does not parse',
      { urls: ['https://a.example', 'http://'] },
      /config chain\.urls\[1\]: not a URL/,
    ],
    ['a lag tolerance of 0', { url: 'http://a.example', max_slot_lag: 0 }, /config chain/],
  ])('refuses %s', (_name, chain, message) => {
    expect(refusal(onRpc(chain))).toMatch(message);
  });
});

describe('the embedded chain’s timing', () => {
  const onEmbedded = (timing?: Record<string, unknown>) => {
    const doc = defaultConfigDocument();
    doc.chain = { kind: 'embedded', ...(timing ? { timing } : {}) };
    return doc;
  };
  const embedded = (doc: ConfigDocument) => {
    const { chain } = resolveConfig(doc);
    if (chain.kind !== 'embedded') throw new Error('not an embedded chain');
    return chain;
  };

  test('is off by default: the instant chain, every transaction final as it lands', () => {
    expect(embedded(onEmbedded()).timing).toBeNull();
  });

  test('keeps a cluster’s lags unless told otherwise: 400 ms slots, confirmed 2 slots on, finalized 32 on', () => {
    expect(embedded(onEmbedded({})).timing).toEqual({
      slotMs: 400,
      confirmationSlots: 2,
      finalizationSlots: 32,
    });
    expect(embedded(onEmbedded({ slot_ms: 100, finalization_slots: 8 })).timing).toEqual({
      slotMs: 100,
      confirmationSlots: 2,
      finalizationSlots: 8,
    });
  });

  test.each<[string, Record<string, unknown>, RegExp]>([
    [
      'finality before confirmation',
      { confirmation_slots: 4, finalization_slots: 3 },
      /chain\.timing\.finalization_slots: must not be below confirmation_slots/,
    ],
    ['a slot too short to keep', { slot_ms: 1 }, /config chain/],
    ['an unknown knob', { slot_millis: 400 }, /config chain/],
  ])('refuses %s', (_, timing, message) => {
    expect(refusal(onEmbedded(timing))).toMatch(message);
  });
});
