// Setup of every `npm test` and `npm run test:deep` worker: failing properties replay from FC_SEED/FC_PATH.
import { configureReplay } from './fast-check-replay.ts';

configureReplay(process.env);
