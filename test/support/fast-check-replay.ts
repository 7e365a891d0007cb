// One way to replay any failing property, in every suite: fast-check prints the failure's seed and path;
// run the same test again with them in the environment (`-t` picks the one property the path belongs to):
//   FC_SEED=<seed> FC_PATH=<path> npx vitest run <file> -t '<test name>'
// Without FC_SEED each run draws a fresh seed, so CI keeps exploring new inputs.
import fc from 'fast-check';

/** Reads FC_SEED and FC_PATH; `fixedSeed` applies when FC_SEED is unset (mutation runs). */
export function configureReplay(env: NodeJS.ProcessEnv, fixedSeed?: number): void {
  const seed = env.FC_SEED === undefined || env.FC_SEED === '' ? fixedSeed : Number(env.FC_SEED);
  if (seed !== undefined && !Number.isSafeInteger(seed))
    throw new Error(`FC_SEED is not an integer: ${env.FC_SEED}`);
  const path = env.FC_PATH === undefined || env.FC_PATH === '' ? undefined : env.FC_PATH;
  if (path !== undefined && seed === undefined) throw new Error('FC_PATH replays only together with FC_SEED');
  fc.configureGlobal({
    ...fc.readConfigureGlobal(),
    ...(seed === undefined ? {} : { seed }),
    ...(path === undefined ? {} : { path }),
  });
}
