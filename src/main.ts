// Process entry: reads the environment, starts the service, and shuts it down gracefully on SIGTERM/SIGINT.
import { resolve } from 'node:path';
import closeWithGrace from 'close-with-grace';
import { ConfigError, DEFAULT_CONFIG_PATH, loadConfig } from './config/index.ts';
import { loggerOptions } from './logging.ts';
import { createService } from './service.ts';

const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 8080);
const dataDir = resolve(process.env.DATA_DIR ?? 'data');
const configPath = resolve(process.env.CONFIG ?? DEFAULT_CONFIG_PATH);
/** postgres://… selects the PostgreSQL store; absent, the store is SQLite under DATA_DIR. */
const databaseUrl = process.env.DATABASE_URL || undefined;
/**
 * Where the other instances reach this one (commands for its trades are forwarded there); unique per
 * instance. Default: the listen address — none for an ephemeral port (PORT=0), which nobody could name.
 */
const advertiseUrl =
  process.env.ADVERTISE_URL ||
  (port === 0 ? undefined : `http://${host.includes(':') ? `[${host}]` : host}:${port}`);

function isWildcard(address: string): boolean {
  return address === '0.0.0.0' || address === '::' || address === '[::]';
}

function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || address.startsWith('127.');
}

async function main(): Promise<void> {
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError('PORT', `'${process.env.PORT}' is not a TCP port`);
  }
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// (or postgresql://) URL');
  }
  // Several instances tell each other apart by address: a wildcard one names none of them.
  if (databaseUrl !== undefined && !process.env.ADVERTISE_URL && isWildcard(host)) {
    throw new ConfigError(
      'ADVERTISE_URL',
      `required with DATABASE_URL when HOST=${host}: the address the other instances reach this one at, unique to it`,
    );
  }
  const loaded = loadConfig(configPath);
  if (!isLoopback(host) && loaded.http.operatorToken === null && loaded.http.operatorTokens.length === 0) {
    throw new ConfigError(
      'http.operator_token',
      `required when listening on a non-loopback address (HOST=${host})`,
    );
  }
  // The environment keeps the secret out of a config file that may be shared or committed.
  const secret = process.env.CLUSTER_SECRET || loaded.cluster.secret;
  if (process.env.CLUSTER_SECRET && !/^[\x21-\x7e]{32,512}$/.test(process.env.CLUSTER_SECRET)) {
    throw new ConfigError('CLUSTER_SECRET', 'must be 32 to 512 printable characters, without spaces');
  }
  // Instances over one database forward commands to each other: without a shared secret an owner could not
  // tell a peer's forward from anyone's request, and would count every forwarded command as the peer's own.
  if (databaseUrl !== undefined && secret === null) {
    throw new ConfigError(
      'cluster.secret',
      'required with DATABASE_URL (or set CLUSTER_SECRET): the same random string in every instance, ' +
        'e.g. `openssl rand -hex 32`',
    );
  }
  const config = { ...loaded, cluster: { ...loaded.cluster, secret } };
  const service = await createService({
    dataDir,
    databaseUrl,
    url: advertiseUrl,
    // Crash-only: a run that lost its lease may no longer own its trades; a new process is a new run that
    // claims what is orphaned. (The runtime has stopped acting already; the store's fence refuses its writes.)
    onOwnershipLost: (reason) => {
      process.stderr.write(`lease lost (${reason}): exiting so a new run takes over\n`);
      process.exit(75);
    },
    config,
    logger: loggerOptions(),
    // The chain answered late, and a configured mint is unfit: the start would have failed; stop now.
    onMintRefused: (error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  });
  const log = service.app.log;
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'shutting down after an error');
    else log.info({ signal }, 'shutting down');
    await service.close();
  });
  await service.app.listen({ host, port });
  // Listening at its address proves earlier runs there are gone: their trades are this run's at once.
  if (advertiseUrl !== undefined) await service.ownership.listeningAt(advertiseUrl);
  log.info(
    { run_id: service.runId, data_dir: dataDir, store: service.store.location, config: configPath },
    'maker service ready',
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`failed to start: ${(error as Error).stack ?? String(error)}\n`);
  }
  process.exit(1);
});
