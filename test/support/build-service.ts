// Vitest global setup: the service's bundle (what `npm start` runs) is built once per test run, so the
// tests that start the service as a process run the same artifact an operator does.
import { buildService } from '../../scripts/build-service.ts';

export async function setup(): Promise<void> {
  await buildService();
}
