// New work waits while the store cannot write (its disk is full): an RFQ, a settlement start and a taker's
// lock are refused before anything is priced, built or broadcast — a lock sent to the chain while the trade
// could not record it would only leave the taker's funds in escrow until the store writes again. 503
// storage_full with Retry-After (the error handler adds it). Commands on running trades are not refused here:
// each tries its own write, and answers the same when it fails.
import { ApiError } from '../errors.ts';

export function assertWritable(writable: () => boolean): void {
  if (writable()) return;
  throw new ApiError(
    'storage_full',
    'The maker cannot store anything right now (its disk is full): nothing was started. Retry later.',
  );
}
