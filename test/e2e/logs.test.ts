// What `npm start` shows: the service's own log lines and nothing else (no dependency's warning about a native
// binding or a deprecated module), as JSON lines when stdout is a pipe and pino-pretty's lines on a terminal.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { SERVICE_BUNDLE } from '../../scripts/build-service.ts';
import { freePort } from '../../scripts/net.ts';
import { startServiceProcess } from '../support/process.ts';
import { tempDir } from '../support/service.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// util-linux's script(1) gives the service a pseudo-terminal as stdout, as a person's shell does.
const SCRIPT = '/usr/bin/script';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const lines = (output: string) => output.split(/\r?\n/).filter((line) => line.trim() !== '');

test('on a pipe, every line the service prints on stdout or stderr is one of its JSON log records', async () => {
  const dir = tempDir();
  cleanups.push(dir.remove);
  const service = await startServiceProcess(dir.path, { LOG_LEVEL: 'info' });
  cleanups.push(() => service.kill9());
  await service.stop();

  const printed = lines(service.output());
  expect(printed.some((line) => line.includes('"msg":"maker service ready"'))).toBe(true);
  for (const line of printed) {
    expect(() => JSON.parse(line), line).not.toThrow();
    expect(JSON.parse(line), line).toMatchObject({ level: expect.any(Number), msg: expect.any(String) });
  }
});

test.skipIf(!existsSync(SCRIPT))('on a terminal, the service prints readable lines, not JSON', async () => {
  const dir = tempDir();
  cleanups.push(dir.remove);
  const port = await freePort();
  const command = `exec '${process.execPath}' --enable-source-maps '${SERVICE_BUNDLE}'`;
  const child: ChildProcess = spawn(SCRIPT, ['-qfec', command, '/dev/null'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dir.path, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  // pino-pretty colours its lines on a terminal; the escapes are left out of what is compared.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences are what is stripped
  const plain = () => output.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
  await expect.poll(plain, { timeout: 45_000 }).toMatch(/maker service ready/);

  const printed = lines(plain());
  expect(printed.find((line) => line.includes('maker service ready'))).toMatch(
    /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: maker service ready$/,
  );
  for (const line of printed) expect(line.trimStart().startsWith('{'), line).toBe(false);
  // Every line is a record's head ([time] LEVEL: message) or one of its indented fields.
  for (const line of printed) expect(line, line).toMatch(/^(\[\d\d:\d\d:\d\d\.\d{3}\] [A-Z]+: |\s{4}\w+: )/);
});
