// `npm run generate` (in packages/taker): writes src/generated/openapi.ts from the service's committed
// OpenAPI document (src/generated/openapi.json; the root's `npm run openapi` refreshes both).
import { writeTypes } from './openapi-types.ts';

process.stdout.write(`wrote ${await writeTypes()}\n`);
