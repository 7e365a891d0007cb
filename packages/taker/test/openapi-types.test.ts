// The package's types are the service's document: src/generated/openapi.ts must be exactly what
// openapi-typescript makes of the committed document (src/generated/openapi.json). That the document is the
// one the service serves today is the root's test (test/http/openapi-document.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { committedDocument, GENERATED_TYPES, generateTypes } from '../scripts/openapi-types.ts';

describe('the generated types', () => {
  test('are what the committed OpenAPI document generates (run `npm run generate -w @rfq-maker/taker` if not)', async () => {
    const doc = committedDocument();
    const committed = readFileSync(GENERATED_TYPES, 'utf8');
    expect(
      committed === (await generateTypes(doc)),
      'src/generated/openapi.ts is stale: npm run generate',
    ).toBe(true);

    // The comparison is not vacuous: a document that drifts (an error code renamed) generates other types.
    const text = JSON.stringify(doc).replaceAll('"lock_not_found"', '"lock_missing"');
    expect(await generateTypes(JSON.parse(text))).not.toBe(committed);
  });

  test('carry every error code of the envelope, which the client’s errors are typed by', () => {
    const committed = readFileSync(GENERATED_TYPES, 'utf8');
    for (const code of ['lock_not_found', 'not_redeemable', 'secret_hash_mismatch', 'rate_limited'])
      expect(committed).toContain(`"${code}"`);
  });
});
