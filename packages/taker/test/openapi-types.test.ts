// The package's types are the service's document: src/generated/openapi.ts must be exactly what
// openapi-typescript makes of GET /v1/openapi.json today. A route, field or error code the service changes
// fails this until `npm run generate` (in packages/taker) is run and the result committed.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { GENERATED_TYPES, generateTypes, serviceDocument } from '../scripts/openapi-types.ts';

describe('the generated types', () => {
  test('are what the service’s OpenAPI document generates (run `npm run generate -w @rfq-maker/taker` if not)', async () => {
    const doc = await serviceDocument();
    const committed = readFileSync(GENERATED_TYPES, 'utf8');
    expect(
      committed === (await generateTypes(doc)),
      'src/generated/openapi.ts is stale: npm run generate',
    ).toBe(true);

    // The comparison is not vacuous: a document that drifts (an error code renamed) generates other types.
    const drifted = structuredClone(doc) as { components?: unknown; paths: Record<string, unknown> };
    const text = JSON.stringify(drifted).replaceAll('"lock_not_found"', '"lock_missing"');
    expect(await generateTypes(JSON.parse(text))).not.toBe(committed);
  });

  test('carry every error code of the envelope, which the client’s errors are typed by', () => {
    const committed = readFileSync(GENERATED_TYPES, 'utf8');
    for (const code of ['lock_not_found', 'not_redeemable', 'secret_hash_mismatch', 'rate_limited'])
      expect(committed).toContain(`"${code}"`);
  });
});
