// The API contract proven by use: openapi-typescript generates types from the served document, the small
// client in ./client.ts type-checks against them (with the repository's own compiler options), and then
// does a whole swap against a live service over real HTTP, every answer checked against the document.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Keypair } from '@solana/web3.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listenOnLoopback, startService, type TestService, tempDir } from '../support/service.ts';
import { newSecret, signAsWallet } from '../support/taker.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT = fileURLToPath(new URL('./client.ts', import.meta.url));

let service: TestService;
let baseUrl: string;
// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked dynamically here.
let doc: any;
let generated: string;
const work = tempDir('rfq-contract-');

beforeAll(async () => {
  service = await startService(undefined, { pollIntervalMs: 50, lockWaitMs: 3_000 });
  baseUrl = `http://127.0.0.1:${await listenOnLoopback(service)}`;
  doc = await (await fetch(`${baseUrl}/v1/openapi.json`)).json();
  generated = astToString(await openapiTS(doc));
});
afterAll(async () => {
  await service.dispose();
  work.remove();
});

/**
 * Type-checks the client beside `types` as ./openapi.gen.ts, under the repository's compiler options;
 * answers the diagnostics, one line each.
 */
function typeCheckClient(name: string, types: string): string[] {
  const dir = join(work.path, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'openapi.gen.ts'), types);
  copyFileSync(CLIENT, join(dir, 'client.ts'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}'); // ESM, as in the repository
  const tsconfig = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile).config;
  const { options, errors } = ts.convertCompilerOptionsFromJson(tsconfig.compilerOptions, ROOT);
  expect(errors).toEqual([]);
  const program = ts.createProgram([join(dir, 'client.ts')], {
    ...options,
    typeRoots: [join(ROOT, 'node_modules/@types')],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file?.getLineAndCharacterOfPosition(d.start ?? 0);
    const at = d.file ? `${d.file.fileName.slice(dir.length + 1)}:${(where?.line ?? 0) + 1}` : '';
    return `${at} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe('a client typed by the types generated from the served document', () => {
  test('type-checks against them', () => {
    const problems = typeCheckClient('current', generated);
    expect(problems, `client.ts against the generated types:\n${problems.join('\n')}`).toEqual([]);
  });

  test('would not, were the document to drift (the check is not vacuous)', () => {
    // A renamed operationId and a renamed settlement status: both break what the client relies on.
    const drifted = generated
      .replace(/^ {4}createRfq: \{/m, '    requestQuote: {')
      .replaceAll('"redeemed"', '"settled"');
    expect(drifted).not.toBe(generated);
    const problems = typeCheckClient('drifted', drifted).join('\n');
    expect(problems).toContain('"createRfq"');
    expect(problems).toContain('"redeemed"');
  });

  test('does a whole swap against the live service, every answer as documented', async () => {
    const seen: { method: string; path: string; status: number; body: unknown }[] = [];
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const url = new URL(input instanceof Request ? input.url : input);
      seen.push({
        method: (init?.method ?? 'GET').toLowerCase(),
        path: url.pathname,
        status: res.status,
        body: await res.clone().json(),
      });
      return res;
    };
    // Loaded at run time: its types are the generated ones, which the root typecheck does not have.
    const { makerClient, swap } = await import(pathToFileURL(CLIENT).href);
    const client = makerClient(baseUrl, { fetch: recording });
    const wallet = Keypair.generate();
    const address = wallet.publicKey.toBase58();
    await client.airdrop({ wallet: address, asset: 'SOL', amount: '5' });
    const { quote, settlement, locked, redeemed } = await swap(
      client,
      {
        address,
        signTransaction: (base64: string) => signAsWallet(base64, wallet),
        secret: newSecret(),
      },
      { input_asset: 'SOL', output_asset: 'USDC', amount: '1.5' },
    );
    expect(quote.status).toBe('accepted');
    expect(settlement.quote_id).toBe(quote.quote_id);
    expect(locked.settlement_status).toBe('initiated');
    expect(redeemed).toMatchObject({ trade_id: settlement.trade_id, settlement_status: 'redeemed' });

    const operations = seen.map((answer) => {
      const [template, operation] = documented(answer.method, answer.path);
      const schema = operation.responses[String(answer.status)]?.content['application/json'].schema;
      expect(schema, `${answer.method} ${template} documents ${answer.status}`).toBeDefined();
      const validate = ajv.compile(schema);
      expect(validate(answer.body), `${answer.method} ${template}: ${JSON.stringify(validate.errors)}`).toBe(
        true,
      );
      return operation.operationId as string;
    });
    expect(new Set(operations)).toEqual(
      new Set(['airdrop', 'createRfq', 'startWalletSettlement', 'submitLock', 'getTrade', 'redeemTrade']),
    );
  });
});

const ajv = new Ajv2020({ strict: false, allErrors: true });
(ajvFormats as unknown as { default: (a: Ajv2020) => void }).default(ajv);

/** The document's operation that a request went to, by method and path template. */
// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI operation object.
function documented(method: string, path: string): [string, any] {
  for (const [template, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
    if (pattern.test(path) && item[method]) return [template, item[method]];
  }
  throw new Error(`${method} ${path} is not in the document`);
}
