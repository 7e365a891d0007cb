// The start-up check of every configured mint, failing closed. Only classic SPL Token mints with the
// configured decimals trade (Token-2022 transfer fees, hooks or permanent delegates would break the escrow's
// amounts), and a mint with a freeze authority the config does not trust is refused: its holder can freeze
// an escrow vault mid-swap. A mint the chain shows otherwise stops the start. A chain that does not answer
// does not stop it (the service starts with the chain down, and trades wait for it), but no mint is ever
// skipped: the check resumes where it stopped, every retry interval, and until every mint is checked the
// service is not ready and takes no new quote or settlement.
import { PublicKey } from '@solana/web3.js';
import type pino from 'pino';
import type { ChainPort } from './chain/index.ts';
import { type Config, ConfigError } from './config/index.ts';

export type MintCheckState =
  | { readonly kind: 'checked' }
  /** The chain did not answer for the mint at `next` (that one and those after it are unchecked). */
  | { readonly kind: 'pending'; readonly next: number; readonly error: string }
  /** A mint the chain shows unfit: the service must not trade. */
  | { readonly kind: 'refused'; readonly error: ConfigError };

export interface MintCheckOptions {
  /** How long after an unanswered read the check tries again. */
  retryMs: number;
  /** A mint found unfit after the start (the chain answered late): the process should stop. */
  onRefused?: (error: ConfigError) => void;
}

export class MintCheck {
  private current: MintCheckState = { kind: 'pending', next: 0, error: 'not checked yet' };
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly chain: Pick<ChainPort, 'readMint'>,
    private readonly config: Pick<Config, 'assets'>,
    private readonly log: pino.Logger,
    private readonly options: MintCheckOptions,
  ) {}

  get state(): MintCheckState {
    return this.current;
  }

  get checked(): boolean {
    return this.current.kind === 'checked';
  }

  /**
   * Checks every mint in order. An unfit mint throws (the start fails, naming the field); an unanswered
   * read leaves that mint and the rest to the retries, which go on until every one is checked.
   */
  async start(): Promise<void> {
    await this.pass();
    if (this.current.kind === 'refused') throw this.current.error;
    if (this.current.kind === 'pending') {
      this.log.warn(
        { err: this.current.error, unchecked: this.config.assets.list.length - this.current.next },
        'chain unreachable: mints not checked yet; quotes are refused until they are',
      );
      this.schedule();
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.pass().then(() => {
        if (this.current.kind === 'pending') return this.schedule();
        if (this.current.kind === 'refused') {
          this.log.error({ err: this.current.error.message }, 'a configured mint is unfit: not trading');
          this.options.onRefused?.(this.current.error);
        } else {
          this.log.info('every configured mint checked on the chain');
        }
      });
    }, this.options.retryMs);
    this.timer.unref?.();
  }

  /** From the first unchecked mint on, until one is unanswered or unfit, or all are checked. */
  private async pass(): Promise<void> {
    if (this.current.kind !== 'pending') return;
    const list = this.config.assets.list;
    for (let index = this.current.next; index < list.length; index++) {
      const asset = list[index];
      if (asset === undefined) break;
      let info: Awaited<ReturnType<ChainPort['readMint']>>;
      try {
        info = await this.chain.readMint(new PublicKey(asset.mint));
      } catch (error) {
        this.current = { kind: 'pending', next: index, error: (error as Error).message };
        return;
      }
      try {
        this.judge(index, info);
      } catch (error) {
        this.current = { kind: 'refused', error: error as ConfigError };
        return;
      }
    }
    this.current = { kind: 'checked' };
  }

  private judge(index: number, info: Awaited<ReturnType<ChainPort['readMint']>>): void {
    const asset = this.config.assets.list[index];
    if (asset === undefined) return;
    const at = `assets[${index}]`;
    if (info === null) throw new ConfigError(`${at}.mint`, `no mint ${asset.mint} on the chain`);
    if (info.program !== 'spl-token') {
      throw new ConfigError(
        `${at}.mint`,
        `${asset.symbol} is a ${info.program} mint; only classic SPL Token mints are accepted`,
      );
    }
    if (info.decimals !== asset.decimals) {
      throw new ConfigError(`${at}.decimals`, `the chain says ${info.decimals} for ${asset.symbol}`);
    }
    if (info.freezeAuthority !== null) {
      if (asset.trustFreezeAuthority !== true) {
        throw new ConfigError(
          `${at}.trust_freeze_authority`,
          `${asset.symbol}'s mint has freeze authority ${info.freezeAuthority}, which can freeze an escrow vault ` +
            "mid-swap: a colluding taker redeems the maker's side, has its own escrow's vault frozen so the " +
            "maker's redeem fails, and refunds after expiry, keeping both sides. Accept the risk with " +
            'trust_freeze_authority: true on this asset only if you trust its issuer as you already do with your ' +
            'inventory of it; otherwise remove the asset',
        );
      }
      this.log.info(
        { mint: asset.mint, freezeAuthority: info.freezeAuthority },
        `${asset.symbol}: freeze authority trusted by config (trust_freeze_authority)`,
      );
    }
  }
}
