// `npm run generate` (in packages/taker): writes src/generated/openapi.ts from the service's OpenAPI document.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_TYPES, generateTypes } from './openapi-types.ts';

const path = fileURLToPath(GENERATED_TYPES);
mkdirSync(dirname(path), { recursive: true });
writeFileSync(path, await generateTypes());
process.stdout.write(`wrote ${path}\n`);
