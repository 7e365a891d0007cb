// Mutation runs replay every property with one fixed seed: a mutant is judged by the same inputs in the
// dry run and in every rerun, so results do not flap with the random seed. A failure still prints its
// seed and path, replayable with FC_SEED and FC_PATH (test/support/fast-check-replay.ts); FC_SEED=<n>
// also explores other inputs.
import { configureReplay } from './fast-check-replay.ts';

configureReplay(process.env, 20_250_101);
