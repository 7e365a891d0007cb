// Just-in-time minting's effects (signMint, attestMint, sendMint of machines/trade.locking.ts): the USDC a
// trade needs beyond the maker's Solana balance, minted from its Circle Gateway unified balance after the
// taker's lock is final and before the maker locks (docs/gateway.md#just-in-time-minting). Each step's result
// is stored by the machine before the next step leaves the process:
// - signing builds a burn intent of the shortfall from the maker's EVM-domain deposit to its own Solana USDC
//   account (the maker the destination caller: no one else may submit the mint), with a fresh salt, maxFee at
//   the configured cap and maxBlockHeight a burn window past the source chain's tip, and signs it (EIP-712);
// - attesting sends that stored intent to Gateway (an attestation stored is reused, never asked for again; one
//   lost to a crash before its store is asked for with the very same request, which the dev Gateway answers
//   with the same attestation and any Gateway refuses for another intent of the spec), has the port check the
//   answer against the intent (checks.ts),
//   builds gatewayMint from it, checks the instruction as the maker's signer sees it (solana/checks.ts) and
//   signs it;
// - sending lands those bytes (rebroadcast until final, or proved lapsed) and books them: gateway_mint's
//   entries (postGatewayMint) and its network fee. The minter's used-hash account of the transfer spec means
//   one spec mints once, however many transactions are signed from its attestation.
// Refusals are answers (the machine releases the taker, gateway_failed); only a chain that cannot be reached is
// an error (retried with the machine's backoff).

import { randomBytes } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import Value from 'typebox/value';
import { bytesToHex, type Hex, hexToBytes } from 'viem';
import type { AttestMintOutput, MintIntent, SendMintOutput, SignMintOutput } from '../../machines/index.ts';
import { isChainError } from '../chain/index.ts';
import type { ChainPort } from '../chain/port.ts';
import { ata } from '../chain/token.ts';
import { isGatewayError } from '../gateway/errors.ts';
import {
  type BurnIntent,
  SOLANA_DOMAIN,
  type TransferSpec,
  transferSpecHash,
} from '../gateway/formats/index.ts';
import type { GatewayPort } from '../gateway/port.ts';
import {
  checkMintTransaction,
  GatewayMintCheckError,
  gatewayMintInstruction,
} from '../gateway/solana/index.ts';
import { BurnIntentJson, intentFromWire, intentToWire } from '../gateway/wire.ts';
import { type LedgerEntry, postGatewayMint, postNetworkFee } from '../ledger/index.ts';

type SourceField = 'sourceDomain' | 'sourceContract' | 'sourceToken' | 'sourceDepositor' | 'sourceSigner';

/** What the minting effects need beyond the chain: the Gateway, the maker's depositor, the bounds. */
export interface MintingHooks {
  port: Pick<GatewayPort, 'transfer'>;
  /** The Gateway's USDC on Solana (base58), and the GatewayMinter that mints it. */
  usdcMint: string;
  minter: PublicKey;
  /** The attesters the maker trusts (bytes32), as the port checks them. */
  attesters: readonly Uint8Array[];
  /** The source half of every spec: the depositor's domain, GatewayWallet, token, depositor and signer. */
  source: Pick<TransferSpec, SourceField>;
  /** Signs a burn intent as the depositor (EIP-712); null where this instance holds no depositor key. */
  signIntent: ((intent: BurnIntent) => Promise<Hex>) | null;
  /** The source chain's block number now. */
  sourceBlock: () => Promise<bigint>;
  /** How many source blocks past the tip an intent's maxBlockHeight sits. */
  burnWindowBlocks: bigint;
  /** The most a mint may cost in Gateway fees (gateway.max_fee_usdc), each intent's maxFee. */
  maxFeeRaw: bigint;
}

/** Books a final gatewayMint on the trade's ledger (its entries, once per signature). */
export type PostMint = (tradeId: string, signature: string, entries: LedgerEntry[]) => Promise<void>;

const transient = (error: unknown) => isChainError(error, 'unavailable') || isChainError(error, 'timeout');
const why = (error: unknown) =>
  `${isGatewayError(error) ? `${error.code}: ` : ''}${(error as Error).message ?? String(error)}`;

/** The stored intent read back; a stored intent that does not parse is a bug, never minted. */
export function storedBurnIntent(intent: MintIntent): { burnIntent: BurnIntent; signature: Uint8Array } {
  if (!Value.Check(BurnIntentJson, intent.burnIntent)) throw new Error('the stored burn intent is malformed');
  return { burnIntent: intentFromWire(intent.burnIntent), signature: hexToBytes(intent.signature as Hex) };
}

/** A burn intent of `valueRaw` to the maker's own USDC account, signed (nothing leaves the process). */
export async function signMintIntent(
  chain: Pick<ChainPort, 'makerWallet'>,
  hooks: MintingHooks | null,
  valueRaw: string,
): Promise<SignMintOutput> {
  if (hooks === null) return { ok: false, reason: 'no Gateway runs on this instance' };
  if (hooks.signIntent === null)
    return { ok: false, reason: 'this instance holds no depositor key to sign with' };
  const value = BigInt(valueRaw);
  const usdc = new PublicKey(hooks.usdcMint);
  let tip: bigint;
  try {
    tip = await hooks.sourceBlock();
  } catch (error) {
    return { ok: false, reason: `the source chain could not be read: ${why(error)}` };
  }
  const intent: BurnIntent = {
    maxBlockHeight: tip + hooks.burnWindowBlocks,
    maxFee: hooks.maxFeeRaw,
    spec: {
      version: 1,
      ...hooks.source,
      destinationDomain: SOLANA_DOMAIN,
      destinationContract: hooks.minter.toBytes(),
      destinationToken: usdc.toBytes(),
      destinationRecipient: ata(chain.makerWallet, usdc).toBytes(),
      destinationCaller: chain.makerWallet.toBytes(),
      value,
      salt: new Uint8Array(randomBytes(32)),
      hookData: new Uint8Array(),
    },
  };
  const signature = await hooks.signIntent(intent);
  return {
    ok: true,
    intent: {
      burnIntent: intentToWire(intent),
      signature,
      transferSpecHash: bytesToHex(transferSpecHash(intent.spec)),
      valueRaw,
      maxBlockHeight: intent.maxBlockHeight.toString(),
    },
  };
}

/**
 * The stored intent's attestation (asked for only when none is stored), checked, and a gatewayMint built from
 * it, checked and signed (not sent).
 */
export async function attestMintIntent(
  chain: Pick<ChainPort, 'makerWallet' | 'signMakerInstructions' | 'commitmentSlots'>,
  hooks: MintingHooks | null,
  intent: MintIntent,
): Promise<AttestMintOutput> {
  if (hooks === null) return { ok: false, reason: 'no Gateway runs on this instance' };
  const { burnIntent, signature } = storedBurnIntent(intent);
  let attestation = intent.attestation;
  if (attestation === null) {
    try {
      const answered = await hooks.port.transfer([{ intent: burnIntent, signature }]);
      attestation = {
        transferId: answered.transferId,
        attestation: bytesToHex(answered.attestation),
        signature: bytesToHex(answered.signature),
        feeRaw: answered.fee.toString(),
        expirationBlock: answered.expirationBlock.toString(),
      };
    } catch (error) {
      if (isGatewayError(error)) return { ok: false, reason: why(error) };
      throw error;
    }
  }
  const maker = chain.makerWallet;
  const usdc = new PublicKey(hooks.usdcMint);
  const instruction = gatewayMintInstruction({
    minter: hooks.minter,
    payer: maker,
    destinationCaller: maker,
    attestation: hexToBytes(attestation.attestation as Hex),
    signature: hexToBytes(attestation.signature as Hex),
  });
  // The slot an expired attestation is refused at; where the port cannot tell, the minter refuses it on chain.
  const slot = chain.commitmentSlots ? BigInt((await chain.commitmentSlots()).confirmed) : 0n;
  try {
    await checkMintTransaction([instruction], {
      minter: hooks.minter,
      usdc,
      maker,
      recipient: ata(maker, usdc),
      value: burnIntent.spec.value,
      transferSpecHash: transferSpecHash(burnIntent.spec),
      slot,
      attesters: hooks.attesters,
    });
  } catch (error) {
    if (error instanceof GatewayMintCheckError) {
      return { ok: false, reason: `the gatewayMint fails its check (${error.code}): ${error.message}` };
    }
    throw error;
  }
  try {
    const signed = await chain.signMakerInstructions({ instructions: [instruction], lookupTables: [] });
    return {
      ok: true,
      attestation,
      transaction: {
        signature: signed.signature,
        lastValidBlockHeight: signed.lastValidBlockHeight,
        transactionBase64: signed.transactionBase64,
      },
    };
  } catch (error) {
    if (transient(error)) throw error;
    return { ok: false, reason: `the gatewayMint could not be signed: ${why(error)}` };
  }
}

export type SentMint =
  | { status: 'landed'; signature: string }
  | { status: 'lapsed'; expired: boolean; reason: string }
  | { status: 'pending'; detail: string };

/**
 * One landing round of the stored gatewayMint; a final one (landed or failed on chain) is booked on the
 * trade's ledger before this answers. The intent's maxBlockHeight passed on the source chain: Gateway can no
 * longer burn it, so nothing more is sent — the bytes already out are followed until they land (booked: the
 * maker holds the USDC) or are proved unable to (the trade then fails).
 */
export async function landMint(
  chain: Pick<ChainPort, 'land' | 'signatureState' | 'blockHeight'>,
  hooks: Pick<MintingHooks, 'sourceBlock' | 'usdcMint'>,
  post: PostMint,
  input: { tradeId: string; intent: MintIntent },
  timeoutMs: number,
): Promise<SentMint> {
  const { intent } = input;
  const tx = intent.transaction;
  const attestation = intent.attestation;
  if (tx === null || attestation === null) throw new Error('no signed gatewayMint to send');
  const book = async (fee: bigint, err: string | null) => {
    const entries = [
      ...(err === null
        ? postGatewayMint(tx.signature, {
            usdcMint: hooks.usdcMint,
            valueRaw: BigInt(intent.valueRaw),
            feeRaw: BigInt(attestation.feeRaw),
          })
        : []),
      ...postNetworkFee(tx.signature, fee),
    ];
    await post(input.tradeId, tx.signature, entries);
  };
  const burnWindowPassed = await hooks.sourceBlock().then(
    (tip) => tip > BigInt(intent.maxBlockHeight),
    () => false,
  );
  if (burnWindowPassed) {
    const state = await chain.signatureState(tx.signature);
    if (state.status === 'finalized') {
      await book(state.fee, state.err);
      return state.err === null
        ? { status: 'landed', signature: tx.signature }
        : { status: 'lapsed', expired: false, reason: `the gatewayMint failed on chain: ${state.err}` };
    }
    if (state.status === 'unknown' && (await chain.blockHeight()) > tx.lastValidBlockHeight) {
      return {
        status: 'lapsed',
        expired: false,
        reason: `the burn intent's maxBlockHeight ${intent.maxBlockHeight} passed before the mint landed`,
      };
    }
    return { status: 'pending', detail: 'the burn window passed; the mint sent may still land' };
  }
  let result: Awaited<ReturnType<ChainPort['land']>>;
  try {
    result = await chain.land(tx, 'finalized', timeoutMs);
  } catch (error) {
    return { status: 'pending', detail: (error as Error).message };
  }
  if (result.status === 'expired') {
    return { status: 'lapsed', expired: true, reason: 'the gatewayMint expired unseen' };
  }
  if (result.status !== 'finalized') return { status: 'pending', detail: result.status };
  await book(result.fee, result.err);
  if (result.err !== null) {
    return { status: 'lapsed', expired: false, reason: `the gatewayMint failed on chain: ${result.err}` };
  }
  return { status: 'landed', signature: tx.signature };
}

/** The machine's answer for a round that ended. */
export function sentMintOutput(sent: Exclude<SentMint, { status: 'pending' }>, now: number): SendMintOutput {
  return sent.status === 'landed'
    ? { landed: true, signature: sent.signature }
    : { landed: false, expired: sent.expired, now, reason: sent.reason };
}
