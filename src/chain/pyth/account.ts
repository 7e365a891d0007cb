// One reading of a price update account, shared by both chain kinds: the same ownership and layout
// checks whether the bytes came from litesvm or from a cluster's getMultipleAccounts.

import { keyBase58 } from '../keys.ts';
import {
  decodePriceUpdateV2,
  isPriceUpdateV2Data,
  type PriceUpdate,
  PYTH_RECEIVER_PROGRAM_ID,
} from './layout.ts';

const RECEIVER = keyBase58(PYTH_RECEIVER_PROGRAM_ID);

/** The price update in an account, or null when it is absent, not the receiver's, or does not decode. */
export function priceUpdateFromAccount(
  account: { owner: string; data: Uint8Array } | null,
): PriceUpdate | null {
  if (!account || account.owner !== RECEIVER || !isPriceUpdateV2Data(account.data)) return null;
  try {
    return decodePriceUpdateV2(account.data);
  } catch {
    return null;
  }
}
