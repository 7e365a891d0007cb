// The served OpenAPI document as an integrator's tools see it: Redocly's `recommended` ruleset (what
// `redocly lint` runs by default), made stricter where a generated client depends on the document.
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startService, type TestService } from '../support/service.ts';

/** recommended, plus what it only warns about but a generated client cannot do without. */
const RULES = {
  'operation-operationId': 'error', // a client's method names
  'operation-description': 'error',
  'operation-summary': 'error',
  'security-defined': 'error',
} as const;

let service: TestService;
let problems: NormalizedProblem[];

beforeAll(async () => {
  service = await startService();
  const res = await service.app.inject('/v1/openapi.json');
  expect(res.statusCode).toBe(200);
  const config = await createConfig({ extends: ['recommended'], rules: RULES });
  problems = await lintFromString({ source: res.body, absoluteRef: 'openapi.json', config });
});
afterAll(async () => service.dispose());

const describeProblem = (p: NormalizedProblem) =>
  `${p.ruleId} at ${p.location.map((l) => l.pointer).join(', ')}: ${p.message}`;

describe('the served OpenAPI document under Redocly’s recommended lint', () => {
  test('has no errors', () => {
    const errors = problems.filter((p) => p.severity === 'error').map(describeProblem);
    expect(errors, `Redocly lint errors:\n${errors.join('\n')}`).toEqual([]);
  });

  test('warns only about what the service has no answer for', () => {
    // info-license: the service is private and its repository states no license; naming one is not the
    // document's call.
    const warnings = problems.filter((p) => p.severity === 'warn');
    const kinds = [...new Set(warnings.map((p) => p.ruleId))].sort();
    expect(kinds, warnings.map(describeProblem).join('\n')).toEqual(['info-license']);
  });
});
