// A throwaway PostgreSQL server from Debian's `postgresql` package, for tests and a local cluster: initdb and
// pg_ctl in a temp folder, no system service, gone on stop() or when its process ends, however it ends.
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
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
  /** Stops the server and removes its folder; calling it again does nothing. */
  stop(): Promise<void>;
}

export interface ThrowawayOptions {
  /** A fixed port; by default a free one is picked (and picked again if another process takes it first). */
  port?: number;
  /** Off for tests: nothing there needs to survive a power cut, and commits get much cheaper. */
  fsync?: boolean;
  log?: (line: string) => void;
}

const run = promisify(execFile);
const DEBIAN_PREFIX = '/usr/lib/postgresql';
const PORT_ATTEMPTS = 5;
// --no-sync spares initdb's own fsyncs only; the server's are the fsync option's.
const INITDB = ['-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'];

/** The folder holding initdb, pg_ctl and postgres: PG_BIN, else Debian's newest major, else initdb's on PATH. */
export function findPostgresBin(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PG_BIN) {
    if (!existsSync(join(env.PG_BIN, 'initdb'))) throw new Error(`PG_BIN=${env.PG_BIN} holds no initdb`);
    return env.PG_BIN;
  }
  const majors = existsSync(DEBIAN_PREFIX)
    ? readdirSync(DEBIAN_PREFIX)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(DEBIAN_PREFIX, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors[0] !== undefined) return join(DEBIAN_PREFIX, majors[0], 'bin');
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'initdb'))) return dirname(join(dir, 'initdb'));
  }
  throw new Error(
    `no PostgreSQL binaries: no initdb under ${DEBIAN_PREFIX}/<major>/bin nor on PATH ` +
      '(install them with `apt-get install postgresql`, or point PG_BIN at the folder holding initdb)',
  );
}

/**
 * initdb and postgres refuse to run as root: a root process runs them as Debian's `postgres` system user,
 * and hands that user the folders they write.
 */
interface RunAs {
  argv: (file: string, args: string[]) => [file: string, args: string[]];
  owner: { uid: number; gid: number } | null;
}

function runAs(): RunAs {
  if (process.getuid?.() !== 0) return { argv: (file, args) => [file, args], owner: null };
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === 'postgres');
  if (!entry) {
    throw new Error(
      'running as root, and PostgreSQL refuses root: the `postgres` system user is missing ' +
        '(Debian creates it with `apt-get install postgresql`)',
    );
  }
  const owner = { uid: Number(entry[2]), gid: Number(entry[3]) };
  const runuser = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find(existsSync);
  if (runuser) return { argv: (file, args) => [runuser, ['-u', 'postgres', '--', file, ...args]], owner };
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find(existsSync);
  if (setpriv) {
    const user = [`--reuid=${owner.uid}`, `--regid=${owner.gid}`, '--init-groups', '--'];
    return { argv: (file, args) => [setpriv, [...user, file, ...args]], owner };
  }
  throw new Error(
    'running as root, and neither runuser nor setpriv is there to run PostgreSQL as `postgres`',
  );
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
  const bin = findPostgresBin();
  const as = runAs();
  const root = await mkdtemp(join(tmpdir(), 'rfq-postgres-'));
  const dataDir = join(root, 'data');
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
  const removeRoot = () => rmSync(root, { recursive: true, force: true });
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
    if (as.owner) {
      await chown(root, as.owner.uid, as.owner.gid);
      await chown(socketDir, as.owner.uid, as.owner.gid);
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
      const target = ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres'];
      await run(join(bin, 'pg_isready'), target).catch((error: unknown) => {
        throw new Error(failure('pg_isready', error));
      });
      log(`postgres on 127.0.0.1:${port} in ${Date.now() - began} ms`);
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
      log(`postgres on port ${port} stopped`);
    };
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      dataDir,
      stop: () => {
        stopping ??= stop();
        return stopping;
      },
    };
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
