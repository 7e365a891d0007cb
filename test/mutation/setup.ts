// Mutation runs replay every property with one fixed seed: a mutant is judged by the same inputs in the
// dry run and in every rerun, so results do not flap with the random seed. A failure still prints its
// seed and path, replayable with `fc.assert(..., { seed, path })` or `test.prop(..., { seed, path })`.
// Override with FC_SEED=<n> to explore other inputs.
import fc from 'fast-check';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20_250_101) });
