// `npm run openapi`: the service's OpenAPI document, as GET /v1/openapi.json serves it, committed where the
// taker package reads it (packages/taker/src/generated/openapi.json), and the package's types generated from
// it. The package never builds the service to learn its contract: it reads this file. A route, field or error
// code the service changes fails test/http/openapi-document.test.ts until this is run and the result committed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPENAPI_DOCUMENT, writeTypes } from '../packages/taker/scripts/openapi-types.ts';
import { DEFAULT_CONFIG_PATH, loadConfig } from '../src/config/index.ts';
import { createService } from '../src/service.ts';

/** The service's document, read from a service built for the purpose (the shipped config, as `npm start` runs it). */
export async function serviceDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rfq-openapi-'));
  const service = await createService({ dataDir, config: loadConfig(DEFAULT_CONFIG_PATH) });
  try {
    const res = await service.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${res.statusCode}`);
    return res.json();
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The document as the file holds it: two-space JSON, one trailing newline. */
export const documentText = (doc: Record<string, unknown>) => `${JSON.stringify(doc, null, 2)}\n`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_DOCUMENT, documentText(await serviceDocument()));
  process.stdout.write(`wrote ${fileURLToPath(OPENAPI_DOCUMENT)}\n`);
  process.stdout.write(`wrote ${await writeTypes()}\n`);
}
