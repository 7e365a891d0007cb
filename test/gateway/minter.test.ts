// Our GatewayMinter on litesvm, driven with the same client bytes as Circle's: a gatewayMint moves exactly
// the attested value from custody to the recipient, once; every hostile variant of the attestation is
// refused on chain with Circle's error, and refused first by the maker's own checkMintTransaction.

import { TOKEN_PROGRAM_ID } from '@solana/spl-token';
import {
  ComputeBudgetProgram,
  PublicKey,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type MintAttestationSet,
  type TransferSpec,
  transferSpecHash,
} from '../../src/gateway/formats/index.ts';
import {
  checkMintTransaction,
  decodeGatewayMinter,
  type GatewayMintCheckCode,
  gatewayMintInstruction,
  type MintExpectation,
  minterCustodyAddress,
  minterStateAddress,
  usedTransferSpecHashAddress,
} from '../../src/gateway/solana/index.ts';
import {
  ATTESTER_KEY,
  attestationFor,
  attesterBytes32,
  CUSTODY_FLOAT,
  expectOk,
  expectRefused,
  GatewayChain,
  type Keypair,
  STRANGER_KEY,
  signed,
  specFor,
} from './harness.ts';

const VALUE = 25_000_000n;

describe('GatewayMinter (ours)', () => {
  let chain: GatewayChain;
  let maker: Keypair;
  let makerUsdc: PublicKey;
  let spec: TransferSpec;

  beforeEach(() => {
    chain = new GatewayChain();
    chain.setUpMinter();
    maker = chain.wallet();
    makerUsdc = chain.createTokenAccount(maker.publicKey, chain.usdc, 0n);
    spec = specFor(chain, makerUsdc, VALUE);
  });

  const mintIx = async (set: MintAttestationSet, key: `0x${string}` = ATTESTER_KEY) =>
    gatewayMintInstruction({
      minter: chain.minter,
      payer: maker.publicKey,
      destinationCaller: maker.publicKey,
      ...(await signed(set, key)),
    });

  const expectation = (over: Partial<MintExpectation> = {}): MintExpectation => ({
    minter: chain.minter,
    usdc: chain.usdc,
    maker: maker.publicKey,
    recipient: makerUsdc,
    value: VALUE,
    transferSpecHash: transferSpecHash(spec),
    slot: chain.slotNow(),
    attesters: [attesterBytes32(ATTESTER_KEY)],
    ...over,
  });

  const refusedBeforeSigning = async (ixs: TransactionInstruction[], code: GatewayMintCheckCode) => {
    await expect(checkMintTransaction(ixs, expectation())).rejects.toMatchObject({ code });
  };

  it('is set up as Circle lays its state out: attester, token, custody bump, domain, version', () => {
    const state = decodeGatewayMinter(
      chain.account(minterStateAddress(chain.minter))?.data ?? new Uint8Array(),
    );
    expect(state.owner.equals(chain.admin.publicKey)).toBe(true);
    expect(state.tokenController.equals(chain.admin.publicKey)).toBe(true);
    expect(state.enabledAttesters).toEqual([attesterBytes32(ATTESTER_KEY)]);
    expect(state.supportedTokens.map((t) => t.toBase58())).toEqual([chain.usdc.toBase58()]);
    expect(state.localDomain).toBe(5);
    expect(state.version).toBe(1);
    expect(state.paused).toBe(false);
    expect(chain.tokenBalance(chain.custody())).toBe(CUSTODY_FLOAT);
  });

  it("builds gatewayMint as Circle's IDL does: accounts, flags, remaining accounts, Borsh params", async () => {
    // circlefin/skills use-gateway/references/solana-to-solana.md: the gatewayMint IDL (discriminator
    // [12, 0]; payer (w, s), destinationCaller (s), gatewayMinter, systemProgram, tokenProgram,
    // eventAuthority, program; params { attestation: bytes, signature: bytes }) and its remaining accounts
    // (custody PDA, recipient, used-hash PDA, all writable).
    const { attestation, signature } = await signed(attestationFor(chain, spec));
    const ix = gatewayMintInstruction({
      minter: chain.minter,
      payer: maker.publicKey,
      destinationCaller: maker.publicKey,
      attestation,
      signature,
    });
    const flags = ix.keys.map((k) => `${k.isSigner ? 's' : '-'}${k.isWritable ? 'w' : '-'}`);
    expect(flags).toEqual(['sw', 's-', '--', '--', '--', '--', '--', '-w', '-w', '-w']);
    const eventAuthority = PublicKey.findProgramAddressSync(
      [Buffer.from('__event_authority')],
      chain.minter,
    )[0];
    const custody = PublicKey.findProgramAddressSync(
      [Buffer.from('gateway_minter_custody'), chain.usdc.toBuffer()],
      chain.minter,
    )[0];
    const used = PublicKey.findProgramAddressSync(
      [Buffer.from('used_transfer_spec_hash'), Buffer.from(transferSpecHash(spec))],
      chain.minter,
    )[0];
    expect(ix.keys.map((k) => k.pubkey.toBase58())).toEqual(
      [
        maker.publicKey,
        maker.publicKey,
        PublicKey.findProgramAddressSync([Buffer.from('gateway_minter')], chain.minter)[0],
        SystemProgram.programId,
        TOKEN_PROGRAM_ID,
        eventAuthority,
        chain.minter,
        custody,
        makerUsdc,
        used,
      ].map((k) => k.toBase58()),
    );
    const data = Buffer.from(ix.data);
    expect([...data.subarray(0, 2)]).toEqual([12, 0]);
    expect(data.readUInt32LE(2)).toBe(attestation.length);
    expect(data.subarray(6, 6 + attestation.length)).toEqual(Buffer.from(attestation));
    expect(data.readUInt32LE(6 + attestation.length)).toBe(65);
    expect(data.subarray(10 + attestation.length)).toEqual(Buffer.from(signature));
  });

  it('mints exactly the attested value to the recipient, once; the replay fails on chain', async () => {
    const ix = await mintIx(attestationFor(chain, spec));
    await expect(checkMintTransaction([ix], expectation())).resolves.toMatchObject({
      attester: attesterBytes32(ATTESTER_KEY),
    });
    const minted = expectOk(chain.send([ix], [maker]), 'gatewayMint');
    expect(chain.tokenBalance(makerUsdc)).toBe(VALUE);
    expect(chain.tokenBalance(chain.custody())).toBe(CUSTODY_FLOAT - VALUE);
    const used = chain.account(usedTransferSpecHashAddress(chain.minter, transferSpecHash(spec)));
    expect(used?.owner.equals(chain.minter)).toBe(true);
    expect([...(used?.data ?? [])]).toEqual([11, 1]);
    // Measured 46,720 CU, of which secp256k1 recovery is 25,000.
    expect(minted.computeUnits).toBeLessThan(200_000n);

    expectRefused(chain.send([ix], [maker]), 'TransferSpecHashAlreadyUsed', 6025);
    // Re-signed by the attester with a later expiry: still the same transfer spec, still refused.
    const again = await mintIx(attestationFor(chain, spec, { maxBlockHeight: chain.slotNow() + 500n }));
    expectRefused(chain.send([again], [maker]), 'TransferSpecHashAlreadyUsed', 6025);
    expect(chain.tokenBalance(makerUsdc)).toBe(VALUE);
  });

  it('a zero destination caller lets anyone submit; the recipient is still the attested one', async () => {
    const relayer = chain.wallet();
    const { attestation, signature } = await signed(attestationFor(chain, spec));
    const ix = gatewayMintInstruction({
      minter: chain.minter,
      payer: relayer.publicKey,
      destinationCaller: relayer.publicKey,
      attestation,
      signature,
    });
    expectOk(chain.send([ix], [relayer]));
    expect(chain.tokenBalance(makerUsdc)).toBe(VALUE);
  });

  it('refuses an attestation signed by a key that is not an enabled attester', async () => {
    const ix = await mintIx(attestationFor(chain, spec), STRANGER_KEY);
    await refusedBeforeSigning([ix], 'untrusted_attester');
    expectRefused(chain.send([ix], [maker]), 'InvalidAttesterSignature', 6014);
    expect(chain.tokenBalance(makerUsdc)).toBe(0n);
  });

  it('refuses an attestation changed after it was signed (a larger value)', async () => {
    const honest = await signed(attestationFor(chain, spec));
    // The first element's value (u64 big-endian at 88 + 64) doubled, the attester's signature kept.
    const larger = Buffer.from(honest.attestation);
    larger.writeBigUInt64BE(VALUE * 2n, 88 + 64);
    const ix = gatewayMintInstruction({
      minter: chain.minter,
      payer: maker.publicKey,
      destinationCaller: maker.publicKey,
      attestation: larger,
      signature: honest.signature,
    });
    await refusedBeforeSigning([ix], 'wrong_value');
    expectRefused(chain.send([ix], [maker]), 'InvalidAttesterSignature', 6014);
    // Signed as it is, a larger value than the intent's is the attester's word, not the maker's: refused
    // before signing.
    await refusedBeforeSigning(
      [await mintIx(attestationFor(chain, { ...spec, value: VALUE * 2n }))],
      'wrong_value',
    );
  });

  it('refuses an attestation for another recipient, whatever account the client passes', async () => {
    const other = chain.createTokenAccount(chain.wallet().publicKey, chain.usdc, 0n);
    const ix = await mintIx(attestationFor(chain, { ...spec, destinationRecipient: other.toBytes() }));
    await refusedBeforeSigning([ix], 'wrong_recipient');
    // The client passes the maker's account in the recipient's place: the program compares it with the
    // attested recipient.
    const keys = ix.keys.map((k, i) => (i === 8 ? { ...k, pubkey: makerUsdc } : k));
    expectRefused(
      chain.send([{ ...ix, keys } as TransactionInstruction], [maker]),
      'DestinationRecipientMismatch',
      6022,
    );
    expect(chain.tokenBalance(other)).toBe(0n);
  });

  it('refuses an attestation of another mint', async () => {
    const otherMint = chain.createMint(maker.publicKey);
    const ix = await mintIx(attestationFor(chain, { ...spec, destinationToken: otherMint.toBytes() }));
    await refusedBeforeSigning([ix], 'wrong_mint');
    // The other mint has no custody here (InvalidCustodyTokenAccount: no account at its PDA); passing
    // USDC's custody instead meets the token comparison.
    expectRefused(chain.send([ix], [maker]), 'InvalidCustodyTokenAccount', 6026);
    const keys = ix.keys.map((k, i) =>
      i === 7 ? { ...k, pubkey: minterCustodyAddress(chain.minter, chain.usdc) } : k,
    );
    expectRefused(
      chain.send([{ ...ix, keys } as TransactionInstruction], [maker]),
      'DestinationTokenMismatch',
      6020,
    );
  });

  it('refuses another destination domain or another minter', async () => {
    const domain = await mintIx(attestationFor(chain, spec, { destinationDomain: 6 }));
    await refusedBeforeSigning([domain], 'wrong_destination');
    expectRefused(chain.send([domain], [maker]), 'DestinationDomainMismatch', 6018);
    const contract = await mintIx(
      attestationFor(chain, spec, { destinationContract: new Uint8Array(32).fill(7) }),
    );
    await refusedBeforeSigning([contract], 'wrong_destination');
    expectRefused(chain.send([contract], [maker]), 'DestinationContractMismatch', 6019);
  });

  it('refuses a foreign destination caller', async () => {
    const foreign = chain.wallet().publicKey;
    const ix = await mintIx(attestationFor(chain, spec, { destinationCaller: foreign.toBytes() }));
    await refusedBeforeSigning([ix], 'foreign_caller');
    expectRefused(chain.send([ix], [maker]), 'DestinationCallerMismatch', 6021);
  });

  it('refuses once maxBlockHeight has passed, and mints up to that slot itself', async () => {
    const set = attestationFor(chain, spec, { maxBlockHeight: chain.slotNow() + 10n });
    const ix = await mintIx(set);
    chain.svm.warpToSlot(set.maxBlockHeight + 1n);
    await expect(checkMintTransaction([ix], expectation())).rejects.toMatchObject({ code: 'expired' });
    expectRefused(chain.send([ix], [maker]), 'AttestationExpired', 6016);
    chain.svm.warpToSlot(set.maxBlockHeight);
    expectOk(chain.send([ix], [maker]));
    expect(chain.tokenBalance(makerUsdc)).toBe(VALUE);
  });

  it('refuses a used-hash account that is not the transfer spec hash PDA', async () => {
    const ix = await mintIx(attestationFor(chain, spec));
    const wrong = usedTransferSpecHashAddress(chain.minter, new Uint8Array(32).fill(1));
    const keys = ix.keys.map((k, i) => (i === 9 ? { ...k, pubkey: wrong } : k));
    expectRefused(
      chain.send([{ ...ix, keys } as TransactionInstruction], [maker]),
      'InvalidTransferSpecHashAccount',
      6024,
    );
  });

  it('checkMintTransaction refuses another transfer spec, extra instructions, extra signers, another program', async () => {
    const ix = await mintIx(attestationFor(chain, spec));
    const otherSpec = await mintIx(attestationFor(chain, specFor(chain, makerUsdc, VALUE)));
    await refusedBeforeSigning([otherSpec], 'wrong_transfer_spec');
    await refusedBeforeSigning(
      [ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 }), ix],
      'extra_instruction',
    );
    await refusedBeforeSigning(
      [{ ...ix, programId: chain.programId } as TransactionInstruction],
      'wrong_program',
    );
    const stranger = chain.wallet().publicKey;
    const extraSigner = ix.keys.map((k, i) => (i === 8 ? { ...k, isSigner: true } : k));
    await refusedBeforeSigning([{ ...ix, keys: extraSigner } as TransactionInstruction], 'extra_signer');
    const payerSwapped = ix.keys.map((k, i) => (i === 0 ? { ...k, pubkey: stranger } : k));
    await refusedBeforeSigning([{ ...ix, keys: payerSwapped } as TransactionInstruction], 'wrong_accounts');
    const tx = new Transaction().add(ix);
    tx.feePayer = stranger;
    await expect(checkMintTransaction(tx, expectation())).rejects.toMatchObject({ code: 'extra_signer' });
    const truncated = { ...ix, data: ix.data.subarray(0, ix.data.length - 1) } as TransactionInstruction;
    await refusedBeforeSigning([truncated], 'malformed_mint');
  });
});
