// The dev Gateway: attester and operator of our own over one EVM source domain (anvil, our GatewayWallet) and
// the embedded Solana chain (our GatewayMinter). It attests a transfer only when every intent is for those
// contracts, signed by its depositor, unexpired, its fee within maxFee, never attested before, and covered by
// the depositor's deposits less what is attested and not burned yet; it writes the transfer before answering.
// A request byte-identical to one it attested (every intent and signature, in order) is answered that same
// transfer again: a client that lost the answer (a crash between it and its own write) gets it back, and nothing
// more is reserved; any other request naming an attested spec is refused.
// Its operator step (settle) sees each mint on Solana (the minter's used-hash account, finalized) and burns the
// intents on the EVM domain with the operator's key; an attestation that expires unminted releases what it held.

import { randomUUID } from 'node:crypto';
import type { PublicKey } from '@solana/web3.js';
import { type Address, getAddress, type Hex, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { EvmDomainClient } from '../evm/index.ts';
import { recoverBurnIntentSigner } from '../formats/eip712.ts';
import {
  type BurnIntent,
  bytesEqual,
  decodeBurnIntent,
  encodeBurnIntent,
  encodeMintAttestationSet,
  evmAddressBytes32,
  GatewayFormatError,
  type MintAttestationSet,
  SOLANA_DOMAIN,
  signAttestation,
  transferSpecHash,
} from '../formats/index.ts';
import type { SignedBurnIntent } from '../port.ts';
import { usedTransferSpecHashAddress } from '../solana/index.ts';
import { DEV_FEE_SCHEDULE, type DevFeeSchedule, devFee } from './fee.ts';
import type { DevGatewayStore, StoredIntent, StoredTransfer } from './store.ts';

/** What the dev Gateway reads of the Solana chain (the embedded ledger, or a cluster). */
export interface SolanaView {
  /** The finalized slot. */
  slot(): bigint;
  /** Whether the account exists, finalized. */
  exists(address: PublicKey): boolean;
}

export interface DevGatewayOptions {
  store: DevGatewayStore;
  evm: EvmDomainClient;
  solana: SolanaView;
  minter: PublicKey;
  usdc: PublicKey;
  /** How many slots an attestation stays mintable. */
  attestationTtlSlots: bigint;
  /** The fewest EVM blocks an intent must leave for the burn (its maxBlockHeight above the tip by at least this). */
  minBurnWindow: bigint;
  /** The burn window an estimate offers: its intents' maxBlockHeight is the tip plus this. */
  estimateWindow: bigint;
  fees?: DevFeeSchedule;
}

/** A request the dev Gateway refuses: an HTTP 400 with the message. */
export class DevGatewayRefusal extends Error {
  override readonly name = 'DevGatewayRefusal';
}

const refuse = (message: string): never => {
  throw new DevGatewayRefusal(message);
};

/** One-at-a-time: attesting reads the chain's balance, then writes; a burn in between would be counted twice. */
class Serial {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(job: () => Promise<T>): Promise<T> {
    const next = this.tail.then(job, job);
    this.tail = next.catch(() => {});
    return next;
  }
}

export class DevGateway {
  readonly attesterKey: Hex;
  readonly operatorKey: Hex;
  private readonly serial = new Serial();
  private readonly fees: DevFeeSchedule;

  constructor(private readonly options: DevGatewayOptions) {
    this.attesterKey = options.store.key('attester');
    this.operatorKey = options.store.key('operator');
    this.fees = options.fees ?? DEV_FEE_SCHEDULE;
  }

  /** The attester's EVM address: the minter must hold it as an enabled attester. */
  get attester(): Address {
    return privateKeyToAccount(this.attesterKey).address;
  }

  /** The operator's EVM address: the GatewayWallet's burn signer. */
  get operator(): Address {
    return privateKeyToAccount(this.operatorKey).address;
  }

  fee(value: bigint): bigint {
    return devFee(value, this.fees);
  }

  /** What the depositor may still transfer from the domain: its deposits less what is attested, unburned. */
  async balance(domain: number, depositor: string): Promise<bigint> {
    if (domain !== this.options.evm.deployment.domain) return 0n;
    if (!/^0x[0-9a-fA-F]{40}$/.test(depositor)) refuse(`${depositor} is not an EVM address`);
    return this.serial.run(async () => {
      const onChain = await this.options.evm.availableBalance(depositor as Address);
      const left = onChain - this.options.store.pending(domain, depositor);
      return left > 0n ? left : 0n;
    });
  }

  /** The intents the estimate answers: maxFee the fee, maxBlockHeight the tip plus a burn window. */
  async estimate(specs: readonly BurnIntent['spec'][]): Promise<{ intents: BurnIntent[]; fees: bigint[] }> {
    const tip = await this.options.evm.blockNumber();
    const fees = specs.map((s) => this.fee(s.value));
    const intents = specs.map((spec, i) => ({
      spec,
      maxFee: fees[i] as bigint,
      maxBlockHeight: tip + this.options.estimateWindow,
    }));
    return { intents, fees };
  }

  /** Attests the signed intents, or refuses them (DevGatewayRefusal); the transfer is stored before it is answered. */
  async transfer(signed: readonly SignedBurnIntent[]): Promise<StoredTransfer> {
    if (signed.length === 0) refuse('no burn intent to attest');
    return this.serial.run(async () => {
      const again = this.attestedAlready(signed);
      if (again !== undefined) return again;
      const checked = await Promise.all(signed.map((s) => this.checkIntent(s)));
      const hashes = checked.map((c) => c.specHash);
      if (new Set(hashes).size !== hashes.length) refuse('the same transfer spec twice in one request');
      const first = (signed[0] as SignedBurnIntent).intent.spec;
      for (const s of signed) {
        if (!bytesEqual(s.intent.spec.destinationCaller, first.destinationCaller)) {
          refuse('intents for different destination callers cannot share one attestation');
        }
      }
      for (const hash of hashes) {
        if (await this.options.evm.transferSpecHashUsed(hash))
          refuse(`transfer spec ${hash} was burned already`);
      }
      const need = new Map<string, bigint>();
      for (const c of checked) need.set(c.depositor, (need.get(c.depositor) ?? 0n) + c.value + c.fee);
      const onChain = new Map<string, bigint>();
      for (const depositor of need.keys()) {
        onChain.set(depositor, await this.options.evm.availableBalance(depositor as Address));
      }
      const set: MintAttestationSet = {
        version: 1,
        destinationDomain: SOLANA_DOMAIN,
        destinationContract: this.options.minter.toBytes(),
        destinationCaller: first.destinationCaller,
        maxBlockHeight: this.options.solana.slot() + this.options.attestationTtlSlots,
        attestations: signed.map((s) => ({
          destinationToken: s.intent.spec.destinationToken,
          destinationRecipient: s.intent.spec.destinationRecipient,
          value: s.intent.spec.value,
          transferSpecHash: transferSpecHash(s.intent.spec),
          hookData: s.intent.spec.hookData,
        })),
      };
      const attestation = encodeMintAttestationSet(set);
      const transfer: StoredTransfer = {
        id: randomUUID(),
        attestation,
        signature: await signAttestation(attestation, this.attesterKey),
        expirationBlock: set.maxBlockHeight,
        status: 'attested',
        burnTxHash: null,
        intents: checked,
      };
      let refusal = '';
      const admitted = this.options.store.insert(transfer, () => {
        const store = this.options.store;
        if (store.anyAttested(hashes)) {
          refusal = 'a transfer spec of this request was attested already';
          return false;
        }
        for (const [depositor, amount] of need) {
          const free =
            (onChain.get(depositor) ?? 0n) - store.pending(this.options.evm.deployment.domain, depositor);
          if (amount > free) {
            refusal = `insufficient balance: ${depositor} has ${free > 0n ? free : 0n} available, the intents need ${amount} with fees`;
            return false;
          }
        }
        return true;
      });
      if (!admitted) refuse(refusal);
      return transfer;
    });
  }

  get(id: string): StoredTransfer | undefined {
    return this.options.store.get(id);
  }

  /**
   * The transfer this very request was attested as, if it was: the same intents, byte for byte, with the same
   * signatures, in the same order, and nothing else. It was checked when first attested and grants nothing
   * new (the minter mints its spec once); answered whatever the transfer's status since.
   */
  private attestedAlready(signed: readonly SignedBurnIntent[]): StoredTransfer | undefined {
    let encoded: Uint8Array[];
    try {
      encoded = signed.map((s) => encodeBurnIntent(s.intent));
    } catch (e) {
      if (e instanceof GatewayFormatError) return undefined; // refused with its reason by the checks
      throw e;
    }
    const first = signed[0] as SignedBurnIntent;
    const id = this.options.store.transferOf(toHex(transferSpecHash(first.intent.spec)));
    const stored = id === undefined ? undefined : this.options.store.get(id);
    if (stored === undefined || stored.intents.length !== signed.length) return undefined;
    const same = stored.intents.every(
      (i, n) =>
        bytesEqual(i.intent, encoded[n] as Uint8Array) &&
        bytesEqual(i.signature, (signed[n] as SignedBurnIntent).signature),
    );
    return same ? stored : undefined;
  }

  /**
   * The operator's step, for every open transfer: minted on Solana (finalized) → burned on the EVM domain, its
   * burn transaction recorded; unminted past its expiry → expired. A burn already mined (a restart after the burn,
   * before its record) is found by its transfer spec hash instead of sent again. A transfer that fails (its burn
   * refused: the intent expired on the source chain before the mint was seen) does not hold up the others; the
   * failures are thrown together once every transfer had its turn, and retried next time.
   */
  async settle(): Promise<void> {
    await this.serial.run(async () => {
      const failures: unknown[] = [];
      for (const transfer of this.options.store.open()) {
        await this.settleOne(transfer).catch((error: unknown) => failures.push(error));
      }
      if (failures.length > 0) throw new AggregateError(failures, `${failures.length} transfers not settled`);
    });
  }

  private async settleOne(transfer: StoredTransfer): Promise<void> {
    const { store, solana, evm, minter } = this.options;
    const minted = transfer.intents.every((i) =>
      solana.exists(usedTransferSpecHashAddress(minter, Buffer.from(i.specHash.slice(2), 'hex'))),
    );
    if (!minted) {
      if (solana.slot() > transfer.expirationBlock) store.setStatus(transfer.id, 'expired');
      return;
    }
    if (transfer.status === 'attested') store.setStatus(transfer.id, 'minted');
    const owed: StoredIntent[] = [];
    let burnTx: Hex | null = null;
    for (const i of transfer.intents) {
      const seen = await evm.findBurn(i.specHash);
      if (seen) burnTx ??= seen.txHash;
      else owed.push(i);
    }
    if (owed.length > 0) {
      burnTx = await evm.gatewayBurn(
        this.operatorKey,
        owed.map((i) => ({ intent: decodeBurnIntent(i.intent), signature: toHex(i.signature), fee: i.fee })),
      );
    }
    store.setStatus(transfer.id, 'burned', burnTx);
  }

  /** Every rule an intent must meet before it is attested; answers what the store keeps of it. */
  private async checkIntent({ intent, signature }: SignedBurnIntent): Promise<StoredIntent> {
    const { evm, minter, usdc, minBurnWindow } = this.options;
    const { deployment } = evm;
    let encoded: Uint8Array;
    try {
      encoded = encodeBurnIntent(intent);
      decodeBurnIntent(encoded);
    } catch (e) {
      if (e instanceof GatewayFormatError) return refuse(`malformed burn intent: ${e.message}`);
      throw e;
    }
    const s = intent.spec;
    if (s.version !== 1) refuse(`transfer spec version ${s.version} is not supported`);
    if (s.sourceDomain !== deployment.domain) refuse(`source domain ${s.sourceDomain} is not served here`);
    if (!bytesEqual(s.sourceContract, evmAddressBytes32(deployment.gatewayWallet)))
      refuse('unknown source contract');
    if (!bytesEqual(s.sourceToken, evmAddressBytes32(deployment.usdc))) refuse('unsupported source token');
    if (s.destinationDomain !== SOLANA_DOMAIN)
      refuse(`destination domain ${s.destinationDomain} is not served here`);
    if (!bytesEqual(s.destinationContract, minter.toBytes())) refuse('unknown destination contract');
    if (!bytesEqual(s.destinationToken, usdc.toBytes())) refuse('unsupported destination token');
    if (!bytesEqual(s.sourceSigner, s.sourceDepositor))
      refuse('the source signer is not the depositor (no delegates here)');
    if (!s.sourceDepositor.subarray(0, 12).every((b) => b === 0))
      refuse('the source depositor is not an EVM address');
    if (s.value <= 0n || s.value >= 2n ** 64n) refuse(`value ${s.value} is not a positive u64`);
    if (s.hookData.length > 0) refuse('hook data is not supported');
    const depositor = getAddress(toHex(s.sourceDepositor.subarray(12)));
    let signer: Address;
    try {
      signer = await recoverBurnIntentSigner(intent, signature);
    } catch (e) {
      if (e instanceof GatewayFormatError) return refuse(`invalid signature: ${e.message}`);
      throw e;
    }
    if (signer !== depositor) refuse('the burn intent is not signed by its source signer');
    const tip = await evm.blockNumber();
    if (intent.maxBlockHeight < tip + minBurnWindow) {
      refuse(
        `maxBlockHeight ${intent.maxBlockHeight} leaves no time to burn (the source chain is at block ${tip})`,
      );
    }
    const fee = this.fee(s.value);
    if (fee > intent.maxFee) refuse(`the fee ${fee} exceeds maxFee ${intent.maxFee}`);
    return {
      specHash: toHex(transferSpecHash(s)),
      sourceDomain: s.sourceDomain,
      depositor: depositor.toLowerCase(),
      value: s.value,
      fee,
      intent: encoded,
      signature,
    };
  }
}
