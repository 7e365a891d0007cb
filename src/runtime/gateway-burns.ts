// The source-chain burns that follow the maker's Gateway mints: Gateway's operator burns the maker's deposit
// (value + fee) once it sees the mint, and that transaction is the trade's `gateway_burn`. What to follow is
// what the store lists as open (store/transfers.ts: attested or minted, written with the transitions that
// attested and minted them), read again each period — so a restarted run follows every transfer whose burn
// it has not seen, trades closed before the restart included, and a transfer attested a moment ago is
// followed from the next period. Each is asked for its status (transferStatus, one request per open transfer
// and period); a burn seen is written as the transfer's burnTransfer, which marks it burned and appends the
// trade's GATEWAY_BURN event in one write — durable, read back by the trade's view. Never a tight loop; a
// Gateway that does not answer is asked again next period. The ledger booked the burn's amounts with the
// mint (postGatewayMint).

import type { GatewayPort } from '../gateway/port.ts';
import { Repeating } from '../repeating.ts';
import {
  GATEWAY_BURN_EVENT,
  type StoreWrite,
  type TradeEventRecord,
  type TransfersRepository,
} from '../store/index.ts';

/** The burns a trade's events record, in order. */
export function gatewayBurnsOf(events: readonly Pick<TradeEventRecord, 'type' | 'payload'>[]): string[] {
  return events.flatMap((event) => {
    if (event.type !== GATEWAY_BURN_EVENT) return [];
    const { signature } = event.payload as { signature?: unknown };
    return typeof signature === 'string' ? [signature] : [];
  });
}

export interface GatewayBurnsOptions {
  port: Pick<GatewayPort, 'transferStatus'>;
  store: Pick<TransfersRepository, 'openTransfers'>;
  /** Queues a write for the group commit; resolves once durable. */
  write(write: StoreWrite): Promise<void>;
  /** The run writing (it names the trade's GATEWAY_BURN event). */
  runId: string;
  /** A trade's GATEWAY_BURN event is durable: its live views hear of it. */
  eventsStored(tradeId: string): void;
  intervalMs: number;
  log: { warn(fields: object, message: string): void };
}

export class GatewayBurns {
  private readonly repeating: Repeating;

  constructor(private readonly options: GatewayBurnsOptions) {
    this.repeating = new Repeating(() => this.poll(), options.intervalMs);
  }

  /** Asks Gateway about every open transfer once; a burn seen is recorded, a transfer given up closed. */
  async poll(): Promise<void> {
    const { port, store, log } = this.options;
    let open: Awaited<ReturnType<typeof store.openTransfers>>;
    try {
      open = await store.openTransfers();
    } catch (error) {
      log.warn({ err: (error as Error).message }, 'could not read the open Gateway transfers');
      return;
    }
    for (const transfer of open) {
      const fields = {
        trade_id: transfer.tradeId,
        transfer_id: transfer.gatewayTransferId,
        transfer_spec_hash: transfer.transferId,
      };
      try {
        const state = await port.transferStatus(transfer.gatewayTransferId);
        if (state.status === 'burned' && state.burnTxHash !== null) {
          await this.options.write({
            kind: 'burnTransfer',
            transferId: transfer.transferId,
            tradeId: transfer.tradeId,
            burnTx: state.burnTxHash,
            runId: this.options.runId,
            at: new Date().toISOString(),
          });
          if (transfer.tradeId !== null) this.options.eventsStored(transfer.tradeId);
        } else if (state.status === 'expired') {
          if (transfer.status === 'minted') {
            // Its mint landed, so Gateway says expired only in error: nothing more to follow, said once.
            log.warn(fields, 'Gateway reports a minted transfer as expired: no burn to show');
          }
          await this.options.write({
            kind: 'expireTransfer',
            transferId: transfer.transferId,
            at: new Date().toISOString(),
          });
        }
      } catch (error) {
        log.warn({ ...fields, err: (error as Error).message }, 'could not read a Gateway transfer’s burn');
      }
    }
  }

  start(): void {
    this.repeating.start();
  }

  async stop(): Promise<void> {
    await this.repeating.stop();
  }
}
