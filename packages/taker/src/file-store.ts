// Node's SwapStore: one JSON file per swap in a directory, written the way that survives a power cut — the
// record into a temp file, fsync'd, renamed over the old one, then the directory fsync'd so the rename itself
// is on disk before put() resolves. Another process on the same directory sees every swap (resume anywhere).
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { newestFirst, type SwapRecord, type SwapStore } from './store.ts';

const HASH = /^[0-9a-f]{64}$/;

export class FileSwapStore implements SwapStore {
  private ready: Promise<unknown> | undefined;

  constructor(readonly directory: string) {}

  private file(secretHash: string): string {
    const key = secretHash.toLowerCase();
    if (!HASH.test(key)) throw new Error('a swap record is keyed by its 64-hex secret_hash');
    return join(this.directory, `${key}.json`);
  }

  private async fsyncDirectory(): Promise<void> {
    const dir = await open(this.directory, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  async put(record: SwapRecord): Promise<void> {
    this.ready ??= mkdir(this.directory, { recursive: true, mode: 0o700 });
    await this.ready;
    const target = this.file(record.secretHash);
    const temp = `${target}.${crypto.randomUUID()}.tmp`;
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(JSON.stringify(record));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
    await this.fsyncDirectory();
  }

  async get(secretHash: string): Promise<SwapRecord | undefined> {
    try {
      return JSON.parse(await readFile(this.file(secretHash), 'utf8')) as SwapRecord;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async list(): Promise<SwapRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const records = await Promise.all(
      names
        .filter((name) => HASH.test(name.replace(/\.json$/, '')) && name.endsWith('.json'))
        .map(async (name) => JSON.parse(await readFile(join(this.directory, name), 'utf8')) as SwapRecord),
    );
    return newestFirst(records);
  }

  async delete(secretHash: string): Promise<void> {
    await rm(this.file(secretHash), { force: true });
    await this.fsyncDirectory().catch(() => {});
  }
}
