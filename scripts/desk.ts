// `npm run desk`: the operator's control plane from the command line — pause and resume the desk or a pair,
// set a pair's or a hedged asset's fields, show the settings in force, read the change log — against a
// running service's /v1/desk routes (docs/operations.md#from-the-command-line-npm-run-desk).
//
//   npm run desk -- pause --all --url http://maker:8080        (token: OPERATOR_TOKEN or --token)
//
// Exit codes: 0 done, 1 the service refused or could not be reached, 2 a usage error.
import { type Invocation, parseCommand, render, renderError, USAGE, UsageError } from './desk/cli.ts';

async function main(): Promise<number> {
  let invocation: Invocation;
  try {
    invocation = parseCommand(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  const { url, token, request } = invocation;
  let res: Response;
  try {
    res = await fetch(`${url}${request.path}`, {
      method: request.method,
      headers: {
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    process.stderr.write(`cannot reach ${url}: ${(error as Error).message}\n`);
    return 1;
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    body = null;
  }
  if (!res.ok) {
    process.stderr.write(`${renderError(res.status, body)}\n`);
    return 1;
  }
  process.stdout.write(`${render(request.print, body)}\n`);
  return 0;
}

process.exitCode = await main();
