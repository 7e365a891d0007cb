// The service as a child process (as `npm start` runs it) on a DATA_DIR with the model's config, for the
// kill -9 property: start it, talk HTTP to it, SIGKILL it. Process handling is test/support/process.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServiceProcess } from '../../support/process.ts';
import { type Json, modelConfigDocument, type Reply } from './world.ts';

export interface Child {
  url: string;
  output(): string;
  post(path: string, body?: unknown): Promise<Reply>;
  get(path: string): Promise<Reply>;
  kill9(): Promise<void>;
}

/** Writes the model's config into the data dir and starts the service on it. */
export async function startChild(dataDir: string): Promise<Child> {
  const configPath = join(dataDir, 'model-config.json');
  writeFileSync(configPath, JSON.stringify(modelConfigDocument()));
  const proc = await startServiceProcess(dataDir, { CONFIG: configPath });
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Reply> => {
    const res = await fetch(`${proc.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: Json = text;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: json };
  };
  return {
    url: proc.url,
    output: proc.output,
    post: (path, body) => call('POST', path, body),
    get: (path) => call('GET', path),
    kill9: () => proc.kill9(),
  };
}
