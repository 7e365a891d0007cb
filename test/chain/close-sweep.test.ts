// Anyone can send tokens to a settled escrow's vault, and the close must still succeed. The maker's close passes its token
// account as the sweep account, so one donated base unit neither blocks the close nor strands the rent.

import { createTransferInstruction } from '@solana/spl-token';
import { Keypair, Transaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makerEscrowAddress, takerEscrowAddress, vaultAddress } from '../../src/chain/htlc/index.ts';
import type { ChainPort } from '../../src/chain/port.ts';
import { ata } from '../../src/chain/token.ts';
import { embeddedHarness, type Harness, SOL, secret, USDC, walletSign } from './fixtures.ts';

describe('maker close after a donation to the vault', () => {
  let h: Harness;
  let chain: ChainPort;
  beforeAll(async () => {
    h = await embeddedHarness();
    chain = h.chain;
  });
  afterAll(async () => {
    await h?.close();
  });

  /** SOL → USDC, both locks, taker redeem: the maker escrow (USDC) ends redeemed, its vault empty. */
  async function settledMakerEscrow() {
    const taker = Keypair.generate();
    const input = 10n ** 9n;
    await h.dev.airdrop({ wallet: taker.publicKey, mint: SOL, amount: input });
    const s = secret();
    const now = await chain.now();
    const lock = await chain.buildTakerLock({
      taker: taker.publicKey,
      inputMint: SOL,
      outputMint: USDC,
      amount: input,
      hashlock: s.hashlock,
      expiry: now + 600n,
      lockDeadline: now + 60n,
    });
    await chain.submitSigned(walletSign(lock, taker));
    const [takerEscrow] = takerEscrowAddress(chain.programId, taker.publicKey, s.hashlock);
    const makerLock = await chain.signMakerLock({
      takerEscrow,
      taker: taker.publicKey,
      inputMint: SOL,
      inputAmount: input,
      takerExpiry: now + 600n,
      outputMint: USDC,
      amount: 150n * 10n ** 6n,
      hashlock: s.hashlock,
      expiry: now + 300n,
      lockDeadline: now + 60n,
    });
    expect(await chain.land(makerLock, 'finalized', 5_000)).toMatchObject({ err: null });
    const redeem = await chain.buildTakerRedeem({
      taker: taker.publicKey,
      takerEscrow,
      outputMint: USDC,
      preimage: s.preimage,
    });
    await chain.submitSigned(walletSign(redeem, taker));
    const [makerEscrow] = makerEscrowAddress(chain.programId, takerEscrow);
    expect((await chain.readEscrow(makerEscrow, 'finalized'))?.status).toBe('redeemed');
    return makerEscrow;
  }

  it('succeeds, and the donated unit reaches the maker', async () => {
    const makerEscrow = await settledMakerEscrow();
    const donor = Keypair.generate();
    await h.dev.airdrop({ wallet: donor.publicKey, mint: USDC, amount: 1n });
    const [vault] = vaultAddress(chain.programId, makerEscrow);
    const { blockhash, lastValidBlockHeight } = await chain.latestBlockhash();
    const donation = new Transaction({ feePayer: donor.publicKey, blockhash, lastValidBlockHeight }).add(
      createTransferInstruction(ata(donor.publicKey, USDC), vault, donor.publicKey, 1n),
    );
    donation.sign(donor);
    const { signature } = await chain.submitSigned(donation.serialize().toString('base64'));
    expect(await chain.confirm(signature, 'finalized', 5_000)).toMatchObject({ err: null });
    expect(await chain.tokenBalance(donor.publicKey, USDC)).toBe(0n);

    const makerUsdc = await chain.tokenBalance(chain.makerWallet, USDC);
    const close = await chain.signClose({ escrow: makerEscrow, mint: USDC });
    expect(await chain.land(close, 'finalized', 5_000)).toMatchObject({ status: 'finalized', err: null });
    expect(await chain.readEscrow(makerEscrow, 'finalized')).toBeNull();
    expect(await chain.tokenBalance(chain.makerWallet, USDC)).toBe(makerUsdc + 1n);
  });
});
