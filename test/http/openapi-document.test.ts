// The service's contract as the taker package reads it: packages/taker/src/generated/openapi.json must be the
// document GET /v1/openapi.json serves today (the package generates its types from that file, never from the
// service itself). A route, field or error code changed fails this until `npm run openapi` is run.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { OPENAPI_DOCUMENT } from '../../packages/taker/scripts/openapi-types.ts';
import { documentText, serviceDocument } from '../../scripts/openapi-document.ts';

describe('the OpenAPI document the taker package reads', () => {
  test('is what the service serves today (run `npm run openapi` if not)', async () => {
    const served = documentText(await serviceDocument());
    const committed = readFileSync(OPENAPI_DOCUMENT, 'utf8');
    expect(committed === served, 'packages/taker/src/generated/openapi.json is stale: npm run openapi').toBe(
      true,
    );
    // Not vacuous: the file is the whole document, every public route in it.
    expect(JSON.parse(committed).paths).toHaveProperty(['/v1/trades/{trade_id}/lock']);
  });
});
