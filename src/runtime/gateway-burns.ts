// The source-chain burns that follow the trades' mints: Gateway's operator burns the maker's deposit (value +
// fee) once it sees the mint, and that transaction is the trade's `gateway_burn`. A trade's mint is followed
// from its transitions (every trade whose context holds a landed gateway_mint, so a restarted run takes up the
// mints of the trades it carries on); each followed transfer is asked for its status on a timer
// (transferStatus, one request per open transfer and period), and a burn seen is written as the trade's
// GATEWAY_BURN event — durable, read back by the trade's view. Never a tight loop; a Gateway that does not
// answer is asked again next period. The ledger booked the burn's amounts with the mint (postGatewayMint).

import type { TradeContext } from '../../machines/index.ts';
import type { GatewayPort } from '../gateway/port.ts';
import { Repeating } from '../repeating.ts';
import type { TradeEventRecord } from '../store/index.ts';

/** The trade event a burn seen is written as; its payload names the EVM transaction and the transfer. */
export const GATEWAY_BURN_EVENT = 'GATEWAY_BURN';

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
  /** The trade's events, to find a burn recorded already. */
  events(tradeId: string): Promise<Pick<TradeEventRecord, 'type' | 'payload'>[]>;
  /** Writes the trade's GATEWAY_BURN event; resolves once durable. */
  note(tradeId: string, type: string, payload: Record<string, unknown>): Promise<void>;
  intervalMs: number;
  log: { warn(fields: object, message: string): void };
}

export class GatewayBurns {
  /** Open transfers by trade: landed mints whose burn is not recorded yet. */
  private readonly open = new Map<string, string>();
  /** Trades already looked at in this run (followed, or found burned). */
  private readonly seen = new Set<string>();
  private readonly repeating: Repeating;

  constructor(private readonly options: GatewayBurnsOptions) {
    this.repeating = new Repeating(
      async () => (this.open.size > 0 ? this.poll() : undefined),
      options.intervalMs,
    );
  }

  /** A trade moved: follow its transfer once its mint landed (once per trade and run). */
  tradeMoved(context: Partial<TradeContext>): void {
    const { tradeId, mintIntent, signatures } = context;
    if (tradeId === undefined || this.seen.has(tradeId)) return;
    const transferId = mintIntent?.attestation?.transferId;
    if (transferId === undefined || !signatures?.some((s) => s.kind === 'gateway_mint')) return;
    this.seen.add(tradeId);
    void this.options
      .events(tradeId)
      .then((events) => {
        if (gatewayBurnsOf(events).length === 0) this.open.set(tradeId, transferId);
      })
      .catch(() => this.seen.delete(tradeId));
  }

  /** Asks Gateway about every open transfer once; a burn seen is recorded and the transfer closed. */
  async poll(): Promise<void> {
    for (const [tradeId, transferId] of [...this.open]) {
      try {
        const state = await this.options.port.transferStatus(transferId);
        if (state.status === 'burned' && state.burnTxHash !== null) {
          await this.options.note(tradeId, GATEWAY_BURN_EVENT, {
            signature: state.burnTxHash,
            transfer_id: transferId,
          });
          this.open.delete(tradeId);
        } else if (state.status === 'expired') {
          // Its mint landed, so Gateway says expired only in error: nothing more to follow, said once.
          this.options.log.warn(
            { trade_id: tradeId, transfer_id: transferId },
            'Gateway reports a minted transfer as expired: no burn to show',
          );
          this.open.delete(tradeId);
        }
      } catch (error) {
        this.options.log.warn(
          { trade_id: tradeId, transfer_id: transferId, err: (error as Error).message },
          'could not read a Gateway transfer’s burn',
        );
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
