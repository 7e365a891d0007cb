// Schemas of the Settlement group: the interface's wallet-settlement request and answer (docs/interface.md,
// Wallet settlement), with our extensions.
import Type from 'typebox';
import { INTEGRATION_STATUS } from '../../vocabulary/index.ts';
import {
  ext,
  NextActionSchema,
  Nullable,
  SecretHash,
  UnsignedTransactionSchema,
  Uuid,
  WalletAddress,
} from '../schemas.ts';

const Address = Type.String({ description: 'base58 address' });

export const SettlementParams = Type.Object({ quote_id: Uuid });

export const WalletSettlementRequestSchema = Type.Object(
  { taker_wallet: WalletAddress, secret_hash: SecretHash },
  { additionalProperties: false, title: 'WalletSettlementRequest' },
);

export const WalletSettlementResponseSchema = Type.Object(
  {
    quote_id: Uuid,
    trade_id: Uuid,
    taker_lock_transaction: UnsignedTransactionSchema,
    expires_at: Type.String({ format: 'date-time', description: 'the taker HTLC expiry' }),
    integration_status: Type.Literal(INTEGRATION_STATUS),
    next_action: NextActionSchema,
    lock_deadline: Type.String({ format: 'date-time', ...ext('the lock must land by then') }),
    redeem_by: Nullable(Type.String({ format: 'date-time', ...ext('known once the maker locks') })),
    taker_escrow: Address,
    maker_escrow: Address,
    program_id: Address,
  },
  { title: 'WalletSettlement' },
);
