// A trade's Gateway transfer as its transitions move it (src/runtime/transfer-record.ts): the record a
// transition carries is derived from the change of the trade's context — the attestation stored makes it
// attested, the final gatewayMint minted — and a transition that changed neither carries none.
import { Keypair } from '@solana/web3.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, test } from 'vitest';
import type { MintIntent, TradeContext } from '../../machines/index.ts';
import { signBurnIntent } from '../../src/gateway/formats/eip712.ts';
import { evmAddressBytes32 } from '../../src/gateway/formats/index.ts';
import { EMBEDDED_GATEWAY_MINTER_ID } from '../../src/gateway/solana/index.ts';
import { signMintIntent } from '../../src/runtime/minting.ts';
import { transferMoved } from '../../src/runtime/transfer-record.ts';
import { USDC_MINT } from '../support/mints.ts';

type Minting = Pick<TradeContext, 'tradeId' | 'mintIntent' | 'signatures'>;

const DEPOSITOR = generatePrivateKey();
const address = evmAddressBytes32(privateKeyToAccount(DEPOSITOR).address);
const AT = '2030-01-01T00:00:00.000Z';

/** A trade's context with a signed intent of `value` from domain 6, maxFee 5 USDC, not yet attested. */
async function signed(value = 43_000_001n): Promise<Minting> {
  const out = await signMintIntent(
    { makerWallet: Keypair.generate().publicKey },
    {
      port: { transfer: async () => Promise.reject(new Error('not asked')) },
      usdcMint: USDC_MINT,
      minter: EMBEDDED_GATEWAY_MINTER_ID,
      attesters: [],
      source: {
        sourceDomain: 6,
        sourceContract: address,
        sourceToken: address,
        sourceDepositor: address,
        sourceSigner: address,
      },
      signIntent: (intent) => signBurnIntent(intent, DEPOSITOR),
      sourceBlock: async () => 100n,
      burnWindowBlocks: 1_000n,
      maxFeeRaw: 5_000_000n,
    },
    value.toString(),
  );
  if (!out.ok) throw new Error(out.reason);
  const mintIntent: MintIntent = { ...out.intent, attestation: null, transaction: null };
  return { tradeId: 'trade-1', mintIntent, signatures: [{ kind: 'taker_lock', signature: 'lock' }] };
}

const attested = (context: Minting, transferId = 'gw-1'): Minting => ({
  ...context,
  mintIntent: context.mintIntent && {
    ...context.mintIntent,
    attestation: {
      transferId,
      attestation: '0x01',
      signature: '0x02',
      feeRaw: '2000001',
      expirationBlock: '900',
    },
    transaction: { signature: 'mint', lastValidBlockHeight: 50, transactionBase64: 'AA==', lapsed: false },
  },
});
const minted = (context: Minting): Minting => ({
  ...context,
  signatures: [...context.signatures, { kind: 'gateway_mint', signature: 'mint' }],
});

describe('the transfer a transition carries', () => {
  test('none before the attestation: signing an intent stores no transfer', async () => {
    const before = await signed();
    expect(transferMoved({ ...before, mintIntent: null }, before, AT)).toBeNull();
    expect(transferMoved(null, { ...before, mintIntent: null }, AT)).toBeNull();
  });

  test('the attestation stored: attested, with its spec hash, Gateway id, source, value, maxFee and fee', async () => {
    const before = await signed();
    const after = attested(before);
    expect(transferMoved(before, after, AT)).toEqual({
      transferId: before.mintIntent?.transferSpecHash,
      gatewayTransferId: 'gw-1',
      tradeId: 'trade-1',
      purpose: 'trade_mint',
      sourceDomain: 6,
      valueRaw: 43_000_001n,
      maxFeeRaw: 5_000_000n,
      feeRaw: 2_000_001n,
      status: 'attested',
      mintSignature: null,
      burnTx: null,
      attestedAt: AT,
      mintedAt: null,
      burnedAt: null,
      expiredAt: null,
    });
  });

  test('the mint final: minted with its signature; later transitions carry none', async () => {
    const before = attested(await signed());
    const after = minted(before);
    expect(transferMoved(before, after, AT)).toMatchObject({
      status: 'minted',
      mintSignature: 'mint',
      mintedAt: AT,
    });
    // The maker lock's transition after it, and a lapsed mint marked, change nothing of the transfer.
    const locked = {
      ...after,
      signatures: [...after.signatures, { kind: 'maker_lock' as const, signature: 'ml' }],
    };
    expect(transferMoved(after, locked, AT)).toBeNull();
    const lapsed: Minting = {
      ...before,
      mintIntent: before.mintIntent && {
        ...before.mintIntent,
        transaction: before.mintIntent.transaction && { ...before.mintIntent.transaction, lapsed: true },
      },
    };
    expect(transferMoved(before, lapsed, AT)).toBeNull();
  });

  test('attested again after a lapse: the transfer is written again (the store keeps it once)', async () => {
    const before = attested(await signed());
    expect(transferMoved(before, attested(before, 'gw-1'), AT)).toMatchObject({ status: 'attested' });
  });

  test('an activation whose context is unknown writes what the context holds', async () => {
    expect(transferMoved(null, minted(attested(await signed())), AT)).toMatchObject({ status: 'minted' });
  });
});
