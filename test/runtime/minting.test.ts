// Just-in-time minting's steps (src/runtime/minting.ts) against a Gateway port and a chain made to answer as a
// test needs: the burn intent signed within the bounds; a stored attestation reused, never asked for again (the
// restart after "attestation received"); Gateway's refusals — down, a fee above the cap, a hostile answer —
// answered as refusals with nothing signed; and a mint whose intent's maxBlockHeight passed never sent again.
import { Keypair, PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { bytesToHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, test, vi } from 'vitest';
import type { MintIntent } from '../../machines/index.ts';
import { ata } from '../../src/chain/token.ts';
import { GatewayError } from '../../src/gateway/errors.ts';
import { signBurnIntent } from '../../src/gateway/formats/eip712.ts';
import {
  type BurnIntent,
  encodeMintAttestationSet,
  evmAddressBytes32,
  SOLANA_DOMAIN,
  signAttestation,
  transferSpecHash,
} from '../../src/gateway/formats/index.ts';
import { EMBEDDED_GATEWAY_MINTER_ID } from '../../src/gateway/solana/index.ts';
import {
  attestMintIntent,
  landMint,
  type MintingHooks,
  signMintIntent,
  storedBurnIntent,
} from '../../src/runtime/minting.ts';
import { USDC_MINT } from '../support/mints.ts';

const ATTESTER = generatePrivateKey();
const DEPOSITOR = generatePrivateKey();
const maker = Keypair.generate().publicKey;
const usdc = new PublicKey(USDC_MINT);
const address = (key: Hex) => evmAddressBytes32(privateKeyToAccount(key).address);

function hooks(overrides: Partial<MintingHooks> = {}): MintingHooks {
  return {
    port: { transfer: vi.fn(async () => Promise.reject(new Error('not asked'))) },
    usdcMint: USDC_MINT,
    minter: EMBEDDED_GATEWAY_MINTER_ID,
    attesters: [address(ATTESTER)],
    source: {
      sourceDomain: 6,
      sourceContract: address(generatePrivateKey()),
      sourceToken: address(generatePrivateKey()),
      sourceDepositor: address(DEPOSITOR),
      sourceSigner: address(DEPOSITOR),
    },
    signIntent: (intent) => signBurnIntent(intent, DEPOSITOR),
    sourceBlock: async () => 100n,
    burnWindowBlocks: 1_000n,
    maxFeeRaw: 5_000_000n,
    ...overrides,
  };
}

/** A chain that signs whatever it is handed, recording the instructions. */
function signingChain() {
  const signed: TransactionInstruction[][] = [];
  return {
    signed,
    chain: {
      makerWallet: maker,
      commitmentSlots: async () => ({ confirmed: 10, finalized: 10 }),
      signMakerInstructions: async (a: { instructions: readonly TransactionInstruction[] }) => {
        signed.push([...a.instructions]);
        return { signature: `sig-${signed.length}`, lastValidBlockHeight: 500, transactionBase64: 'AA==' };
      },
    },
  };
}

async function signedIntent(value = 40_000_000n): Promise<MintIntent> {
  const out = await signMintIntent({ makerWallet: maker }, hooks(), value.toString());
  if (!out.ok) throw new Error(out.reason);
  return { ...out.intent, attestation: null, transaction: null };
}

/** An attestation of the intent by ATTESTER, or of something else when `change` alters its element. */
async function attestationOf(intent: MintIntent, change: { recipient?: PublicKey } = {}) {
  const { burnIntent } = storedBurnIntent(intent);
  const bytes = encodeMintAttestationSet({
    version: 1,
    destinationDomain: SOLANA_DOMAIN,
    destinationContract: EMBEDDED_GATEWAY_MINTER_ID.toBytes(),
    destinationCaller: maker.toBytes(),
    maxBlockHeight: 1_000n,
    attestations: [
      {
        destinationToken: usdc.toBytes(),
        destinationRecipient: (change.recipient ?? ata(maker, usdc)).toBytes(),
        value: burnIntent.spec.value,
        transferSpecHash: transferSpecHash(burnIntent.spec),
        hookData: new Uint8Array(),
      },
    ],
  });
  return {
    transferId: 't-1',
    attestation: bytesToHex(bytes),
    signature: bytesToHex(await signAttestation(bytes, ATTESTER)),
    feeRaw: '12000',
    expirationBlock: '1000',
  };
}

describe('signing the burn intent', () => {
  test('the shortfall to the maker’s own USDC account, the maker the only caller, maxFee the cap, a burn window past the tip', async () => {
    const intent = await signedIntent(40_000_000n);
    const { burnIntent } = storedBurnIntent(intent);
    const spec: BurnIntent['spec'] = burnIntent.spec;
    expect(spec.value).toBe(40_000_000n);
    expect(new PublicKey(spec.destinationRecipient).equals(ata(maker, usdc))).toBe(true);
    expect(new PublicKey(spec.destinationCaller).equals(maker)).toBe(true);
    expect(burnIntent.maxFee).toBe(5_000_000n);
    expect(burnIntent.maxBlockHeight).toBe(1_100n);
    expect(intent.maxBlockHeight).toBe('1100');
    // A fresh salt each: two intents are two transfer specs.
    expect((await signedIntent()).transferSpecHash).not.toBe(intent.transferSpecHash);
  });

  test('refused, not thrown, without a Gateway, a depositor key or a readable source chain', async () => {
    expect(await signMintIntent({ makerWallet: maker }, null, '1')).toMatchObject({ ok: false });
    expect(await signMintIntent({ makerWallet: maker }, hooks({ signIntent: null }), '1')).toMatchObject({
      ok: false,
    });
    const down = hooks({ sourceBlock: async () => Promise.reject(new Error('anvil gone')) });
    expect(await signMintIntent({ makerWallet: maker }, down, '1')).toMatchObject({ ok: false });
  });
});

describe('attesting and signing the mint', () => {
  test('a stored attestation is reused: Gateway is not asked again (it would refuse the spec), the mint signed anew', async () => {
    const intent = await signedIntent();
    const stored = { ...intent, attestation: await attestationOf(intent) };
    const h = hooks();
    const { chain, signed } = signingChain();
    const out = await attestMintIntent(chain, h, stored);
    expect(out).toMatchObject({ ok: true, attestation: stored.attestation });
    expect(h.port.transfer).not.toHaveBeenCalled();
    expect(signed).toHaveLength(1);
  });

  test.each([
    ['Gateway down', new GatewayError('unavailable', 'connection refused')],
    ['the fee above the cap', new GatewayError('fee_above_cap', 'the fee 43 exceeds the cap 10')],
    ['an attestation for another recipient', new GatewayError('attestation_mismatch', 'pays another')],
    ['the spec attested already', new GatewayError('refused', 'transfer spec attested already')],
  ])('%s: a refusal naming it, nothing signed', async (_, error) => {
    const intent = await signedIntent();
    const { chain, signed } = signingChain();
    const out = await attestMintIntent(
      chain,
      hooks({ port: { transfer: async () => Promise.reject(error) } }),
      intent,
    );
    expect(out).toEqual({ ok: false, reason: `${error.code}: ${error.message}` });
    expect(signed).toHaveLength(0);
  });

  test('a hostile attestation (another recipient) is refused by the mint’s own check before the maker signs', async () => {
    const intent = await signedIntent();
    const hostile = await attestationOf(intent, { recipient: Keypair.generate().publicKey });
    const { chain, signed } = signingChain();
    const out = await attestMintIntent(chain, hooks(), { ...intent, attestation: hostile });
    expect(out).toMatchObject({ ok: false });
    expect(!out.ok && out.reason).toContain('wrong_recipient');
    expect(signed).toHaveLength(0);
  });
});

describe('sending the mint', () => {
  const sentIntent = async (): Promise<MintIntent> => {
    const intent = await signedIntent();
    return {
      ...intent,
      attestation: await attestationOf(intent),
      transaction: {
        signature: 'mint-sig',
        lastValidBlockHeight: 500,
        transactionBase64: 'AA==',
        lapsed: false,
      },
    };
  };

  test('its intent’s maxBlockHeight passed and the mint unseen past its blockhash: lapsed, never sent', async () => {
    const intent = await sentIntent();
    const land = vi.fn();
    const out = await landMint(
      { land, signatureState: async () => ({ status: 'unknown' }), blockHeight: async () => 501 },
      { sourceBlock: async () => 1_101n, usdcMint: USDC_MINT },
      async () => {},
      { tradeId: 't', intent },
      1_000,
    );
    expect(out).toMatchObject({ status: 'lapsed', expired: false });
    expect(land).not.toHaveBeenCalled();
  });

  test('its maxBlockHeight passed while the mint sent may still land: pending, nothing sent', async () => {
    const intent = await sentIntent();
    const land = vi.fn();
    const out = await landMint(
      { land, signatureState: async () => ({ status: 'unknown' }), blockHeight: async () => 499 },
      { sourceBlock: async () => 1_101n, usdcMint: USDC_MINT },
      async () => {},
      { tradeId: 't', intent },
      1_000,
    );
    expect(out.status).toBe('pending');
    expect(land).not.toHaveBeenCalled();
  });

  test('landed: booked once, value from the unified balance and the fee as a cost', async () => {
    const intent = await sentIntent();
    const posted: unknown[] = [];
    const out = await landMint(
      {
        land: async () => ({ status: 'finalized', slot: 9, err: null, fee: 5_000n }),
        signatureState: async () => ({ status: 'unknown' }),
        blockHeight: async () => 1,
      },
      { sourceBlock: async () => 100n, usdcMint: USDC_MINT },
      async (_, signature, entries) => {
        posted.push({ signature, entries });
      },
      { tradeId: 't', intent },
      1_000,
    );
    expect(out).toEqual({ status: 'landed', signature: 'mint-sig' });
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({
      signature: 'mint-sig',
      entries: expect.arrayContaining([
        expect.objectContaining({ movement: 'gateway_mint', account: 'maker', amountRaw: 40_000_000n }),
        expect.objectContaining({
          movement: 'network_fee',
          account: 'network',
          mint: USDC_MINT,
          amountRaw: 12_000n,
        }),
        expect.objectContaining({ movement: 'network_fee', amountRaw: 5_000n }),
      ]),
    });
  });
});
