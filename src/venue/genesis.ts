// The embedded venue as an extension of the embedded chain's genesis (src/chain/embedded/extension.ts): the
// AMM program deployed with the chain, the pools seeded once the ledger is open, the keeper following the
// chain's Pyth publisher, all stopped when the chain closes. Whoever opens the chain builds one, passes it
// in `extensions`, and keeps it for the venue it holds afterwards; the chain itself knows no venue.

import type { GenesisContext, GenesisExtension, GenesisProgram } from '../chain/embedded/extension.ts';
import { EmbeddedVenue, type EmbeddedVenueOptions } from './embedded.ts';
import { DEFAULT_AMM_PROGRAM_ID, loadAmmProgram } from './program.ts';

export class VenueGenesis implements GenesisExtension {
  readonly programs: readonly GenesisProgram[];
  private started: EmbeddedVenue | null = null;

  constructor(private readonly options: EmbeddedVenueOptions) {
    this.programs = [{ programId: options.programId ?? DEFAULT_AMM_PROGRAM_ID, program: loadAmmProgram() }];
  }

  /** The venue on the chain this was started with: pools seeded, keeper running, API on serve(). */
  get venue(): EmbeddedVenue {
    if (!this.started) throw new Error('venue: the chain that carries it is not created yet');
    return this.started;
  }

  start({ ledger, pyth }: GenesisContext): void {
    if (this.started) throw new Error('venue: already started on a chain');
    const venue = new EmbeddedVenue(ledger, this.options, pyth);
    venue.seed();
    venue.startKeeper();
    this.started = venue;
  }

  async close(): Promise<void> {
    await this.started?.close();
  }
}
