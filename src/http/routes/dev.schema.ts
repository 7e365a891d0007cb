// Schemas of the Dev group: the embedded chain's faucet.
import Type from 'typebox';
import { DecimalAmount, WalletAddress } from '../schemas.ts';

export const AirdropRequestSchema = Type.Object(
  {
    wallet: WalletAddress,
    asset: Type.String({ minLength: 1, maxLength: 64, description: 'asset id (mint) or symbol' }),
    amount: DecimalAmount,
  },
  { additionalProperties: false },
);

export const AirdropResponseSchema = Type.Object({
  signature: Type.String(),
  wallet: Type.String(),
  asset: Type.String(),
  amount_raw: Type.String(),
});
