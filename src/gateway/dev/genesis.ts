// Our GatewayMinter as an extension of the embedded chain's genesis (src/chain/embedded/extension.ts): the
// program deployed with the chain at its fixed id, and, once the ledger is open, set up the way the dev Gateway
// needs it — initialized for Solana's domain, the dev Gateway's attester enabled, the chain's USDC supported,
// and its custody holding a float the faucet mints into it. The embedded USDC keeps the faucet as its mint
// authority (airdrops are MintTo from it), so the custody is funded by the faucet rather than by our
// mint_custody (which needs the minter PDA as mint authority); a start that finds the float below half tops it
// up. Idempotent: a restart re-enables an attester it does not find, and changes nothing else.

import { createMintToInstruction } from '@solana/spl-token';
import { type Keypair, type PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import type { GenesisContext, GenesisExtension, GenesisProgram } from '../../chain/embedded/extension.ts';
import type { EmbeddedLedger } from '../../chain/embedded/ledger.ts';
import { type FastSigner, fastSigner, signWith } from '../../chain/signer.ts';
import { readTokenAccount } from '../../chain/token.ts';
import { bytesEqual, SOLANA_DOMAIN } from '../formats/index.ts';
import {
  decodeGatewayMinter,
  EMBEDDED_GATEWAY_MINTER_ID,
  loadGatewayMinterProgram,
  minterAddAttesterInstruction,
  minterAddTokenInstruction,
  minterCustodyAddress,
  minterInitializeInstruction,
  minterStateAddress,
} from '../solana/index.ts';

export interface MinterGenesisOptions {
  /** The embedded chain's USDC mint. */
  usdc: PublicKey;
  /** The dev Gateway's attester: its EVM address as a bytes32 (evmAddressBytes32). */
  attester: Uint8Array;
  /** What the minter's custody holds for mints, raw units. */
  custodyFloat: bigint;
  minter?: PublicKey;
}

const ADMIN_LAMPORTS = 1_000_000_000n;

export class MinterGenesis implements GenesisExtension {
  readonly programs: readonly GenesisProgram[];
  readonly minter: PublicKey;

  constructor(private readonly options: MinterGenesisOptions) {
    this.minter = options.minter ?? EMBEDDED_GATEWAY_MINTER_ID;
    this.programs = [{ programId: this.minter, program: loadGatewayMinterProgram() }];
  }

  start({ ledger }: GenesisContext): void {
    // The minter's owner and token controller: a key of this chain's own, the same after every restart.
    const admin = ledger.devKeypair('gateway-minter-admin');
    const state = ledger.getAccount(minterStateAddress(this.minter));
    if (!state) {
      ledger.requestAirdrop(admin.publicKey, ADMIN_LAMPORTS);
      this.send(ledger, fastSigner(admin), [
        minterInitializeInstruction({
          minter: this.minter,
          payer: admin.publicKey,
          upgradeAuthority: admin.publicKey,
          localDomain: SOLANA_DOMAIN,
        }),
        this.addAttester(admin),
        minterAddTokenInstruction({
          minter: this.minter,
          payer: admin.publicKey,
          tokenController: admin.publicKey,
          mint: this.options.usdc,
        }),
      ]);
    } else if (
      !decodeGatewayMinter(state.data).enabledAttesters.some((a) => bytesEqual(a, this.options.attester))
    ) {
      this.send(ledger, fastSigner(admin), [this.addAttester(admin)]);
    }
    const custody = minterCustodyAddress(this.minter, this.options.usdc);
    const held = readTokenAccount(ledger.getAccount(custody)?.data ?? new Uint8Array())?.amount ?? 0n;
    if (held < this.options.custodyFloat / 2n) {
      this.send(ledger, ledger.faucet, [
        createMintToInstruction(
          this.options.usdc,
          custody,
          ledger.faucet.publicKey,
          this.options.custodyFloat - held,
        ),
      ]);
    }
  }

  async close(): Promise<void> {}

  private addAttester(admin: Keypair): TransactionInstruction {
    return minterAddAttesterInstruction({
      minter: this.minter,
      owner: admin.publicKey,
      attester: this.options.attester,
    });
  }

  private send(ledger: EmbeddedLedger, signer: FastSigner, instructions: TransactionInstruction[]): void {
    const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash();
    const tx = new Transaction({ feePayer: signer.publicKey, blockhash, lastValidBlockHeight }).add(
      ...instructions,
    );
    const { record } = ledger.execute(signWith(tx, signer).bytes);
    if (record.err !== null) {
      throw new Error(`gateway minter genesis: ${JSON.stringify(record.err)}\n${record.logs.join('\n')}`);
    }
  }
}
