// Maker v0 transactions on both chain ports: composed from instructions, optionally against an address
// lookup table made on chain by the lookup-table program itself, signed by the maker alone, landed with
// the same send/land/signatureState as every maker transaction, and recorded (loaded accounts included:
// their balances, their history, and on the embedded chain their state across a restart).

import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferInstruction,
} from '@solana/spl-token';
import {
  AddressLookupTableProgram,
  Keypair,
  type PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
} from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainError } from '../../src/chain/errors.ts';
import type { ChainPort } from '../../src/chain/port.ts';
import { ata, NATIVE_MINT } from '../../src/chain/token.ts';
import { parseWireTransaction } from '../../src/chain/wire.ts';
import { embeddedHarness, type Harness, rpcHarness, tempDir, testEmbeddedChain, USDC } from './fixtures.ts';

async function rejection(p: Promise<unknown>): Promise<ChainError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ChainError) return e;
    throw e;
  }
  throw new Error('expected a ChainError');
}

/** A lookup table made by the lookup-table program, holding `addresses`, usable from the next slot on. */
async function createLookupTable(h: Harness, addresses: PublicKey[]): Promise<PublicKey> {
  const authority = Keypair.generate();
  await h.dev.airdrop({ wallet: authority.publicKey, mint: NATIVE_MINT, amount: 1_000_000_000n });
  // A table names a recent slot the SlotHashes sysvar lists: one before now (a fresh chain is at slot 0).
  await h.dev.advanceClock(1);
  const recentSlot = (await h.chain.blockHeight()) - 1;
  const [create, table] = AddressLookupTableProgram.createLookupTable({
    authority: authority.publicKey,
    payer: authority.publicKey,
    recentSlot,
  });
  const extend = AddressLookupTableProgram.extendLookupTable({
    lookupTable: table,
    authority: authority.publicKey,
    payer: authority.publicKey,
    addresses,
  });
  const { blockhash } = await h.chain.latestBlockhash();
  const tx = new Transaction({ feePayer: authority.publicKey, recentBlockhash: blockhash }).add(
    create,
    extend,
  );
  tx.sign(authority);
  await h.chain.submitSigned(tx.serialize().toString('base64'));
  // Addresses extended in a slot become usable in the next one.
  await h.dev.advanceClock(1);
  return table;
}

function usdcPayment(maker: PublicKey, recipient: PublicKey, amount: bigint): TransactionInstruction[] {
  return [
    createAssociatedTokenAccountIdempotentInstruction(maker, ata(recipient, USDC), recipient, USDC),
    createTransferInstruction(ata(maker, USDC), ata(recipient, USDC), maker, amount),
  ];
}

describe.each([
  ['embedded', embeddedHarness],
  ['rpc', rpcHarness],
] as const)('maker v0 transactions on the %s chain', (_name, open) => {
  let h: Harness;
  beforeAll(async () => {
    h = await open();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('signs and lands a v0 transaction without lookup tables', async () => {
    const recipient = Keypair.generate().publicKey;
    const signed = await h.chain.signMakerInstructions({
      instructions: usdcPayment(h.maker.publicKey, recipient, 1_500_000n),
      lookupTables: [],
    });
    const wire = parseWireTransaction(new Uint8Array(Buffer.from(signed.transactionBase64, 'base64')));
    expect(wire.version).toBe(0);
    expect(wire.accountKeys[0]).toBe(h.maker.publicKey.toBase58());
    expect(wire.header.numRequiredSignatures).toBe(1);
    const landed = await h.chain.land(signed, 'finalized', 10_000);
    expect(landed).toMatchObject({ status: 'finalized', err: null });
    expect(await h.chain.tokenBalance(recipient, USDC)).toBe(1_500_000n);
    expect(await h.chain.signatureState(signed.signature)).toMatchObject({ status: 'finalized', err: null });
    // Sending the same bytes again is not an error and moves nothing twice.
    await h.chain.send(signed);
    expect(await h.chain.tokenBalance(recipient, USDC)).toBe(1_500_000n);
  });

  it('loads accounts from an on-chain lookup table, and records them like static ones', async () => {
    const recipient = Keypair.generate().publicKey;
    const recipientAta = ata(recipient, USDC);
    const table = await createLookupTable(h, [recipientAta, recipient, USDC]);
    const signed = await h.chain.signMakerInstructions({
      instructions: usdcPayment(h.maker.publicKey, recipient, 2_000_000n),
      lookupTables: [table],
    });
    const wire = parseWireTransaction(new Uint8Array(Buffer.from(signed.transactionBase64, 'base64')));
    expect(wire.addressTableLookups).toHaveLength(1);
    expect(wire.accountKeys).not.toContain(recipientAta.toBase58());
    expect(await h.chain.land(signed, 'finalized', 10_000)).toMatchObject({ status: 'finalized', err: null });
    expect(await h.chain.tokenBalance(recipient, USDC)).toBe(2_000_000n);
    const tx = await h.chain.getTransaction(signed.signature, 'finalized');
    expect(tx?.tokenBalances).toEqual(
      expect.arrayContaining([
        {
          account: recipientAta.toBase58(),
          mint: USDC.toBase58(),
          owner: recipient.toBase58(),
          pre: 0n,
          post: 2_000_000n,
        },
      ]),
    );
    const history = await h.chain.signaturesForAddress(recipientAta, 'finalized');
    expect(history.map((s) => s.signature)).toContain(signed.signature);
  });

  it('refuses to sign for anyone but the maker, and a lookup table that is not there', async () => {
    const stranger = Keypair.generate().publicKey;
    const needsStranger = new TransactionInstruction({
      programId: SystemProgram.programId,
      keys: [{ pubkey: stranger, isSigner: true, isWritable: true }],
      data: Buffer.alloc(0),
    });
    const other = await rejection(
      h.chain.signMakerInstructions({ instructions: [needsStranger], lookupTables: [] }),
    );
    expect(other.code).toBe('invalid_transaction');
    const missing = await rejection(
      h.chain.signMakerInstructions({
        instructions: usdcPayment(h.maker.publicKey, stranger, 1n),
        lookupTables: [Keypair.generate().publicKey],
      }),
    );
    expect(missing.code).toBe('invalid_transaction');
  });
});

describe('the embedded chain keeps what a lookup table loaded', () => {
  it('persists a written account that only a lookup table named, across a restart', async () => {
    const dataDir = tempDir('v0-restart');
    const maker = Keypair.generate();
    const h0 = await embeddedHarness(dataDir, maker);
    const recipient = Keypair.generate().publicKey;
    const table = await createLookupTable(h0, [ata(recipient, USDC), recipient, USDC]);
    const signed = await h0.chain.signMakerInstructions({
      instructions: usdcPayment(maker.publicKey, recipient, 777n),
      lookupTables: [table],
    });
    await h0.chain.land(signed, 'finalized', 10_000);
    await (h0.chain as ChainPort).close();
    const again = testEmbeddedChain(dataDir, maker);
    try {
      expect(await again.tokenBalance(recipient, USDC)).toBe(777n);
      expect(await again.getTransaction(signed.signature, 'finalized')).not.toBeNull();
    } finally {
      await again.close();
      await h0.close();
    }
  });
});
