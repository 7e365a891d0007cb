// A mint's freeze authority, colluding with a taker, takes both sides of a swap: the attack on the chain,
// then the start-up check that refuses such a mint unless the config trusts its issuer.
import { join } from 'node:path';
import { createFreezeAccountInstruction, createThawAccountInstruction } from '@solana/spl-token';
import { Keypair, PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { afterEach, describe, expect, test } from 'vitest';
import {
  createEmbeddedChain,
  type EmbeddedChain,
  loadOrCreateKeypairFile,
  makerEscrowAddress,
  takerEscrowAddress,
  type UnsignedTransaction,
  vaultAddress,
} from '../../src/chain/index.ts';
import { type Config, ConfigError, resolveConfig } from '../../src/config/index.ts';
import { createService } from '../../src/service.ts';
import { secret, walletSign } from '../chain/fixtures.ts';
import { defaultConfigDocument, nth, tempDir } from '../support/service.ts';

const BONK = new PublicKey('DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263');
const USDC = new PublicKey('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
const BONK_INDEX = 3;

const dirs: { remove: () => void }[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});
const dataDir = () => {
  const dir = tempDir();
  dirs.push(dir);
  return dir.path;
};

/**
 * The embedded chain the service opens under DATA_DIR/chain (same maker key file, mints and inventory), except
 * that BONK's mint names the attacker as its freeze authority.
 */
function chainWithHostileBonk(dir: string, config: Config, attacker: PublicKey): EmbeddedChain {
  return createEmbeddedChain({
    dataDir: join(dir, 'chain'),
    makerKeypair: loadOrCreateKeypairFile(join(dir, 'maker-keypair.json')),
    mints: config.assets.list.map((asset) => ({
      address: asset.mint,
      decimals: asset.decimals,
      symbol: asset.symbol,
      ...(asset.mint === BONK.toBase58() ? { freezeAuthority: attacker } : {}),
    })),
    makerInventory: [...config.inventory].map(([mint, amount]) => ({ mint, amount })),
  });
}

/** The taker's wallet reworks a transaction it was handed, and the colluding freeze authority co-signs. */
function withAccomplice(
  unsigned: UnsignedTransaction,
  instructions: (original: TransactionInstruction[]) => TransactionInstruction[],
  signers: Keypair[],
): string {
  const original = Transaction.from(Buffer.from(unsigned.transactionBase64, 'base64'));
  const tx = new Transaction({
    feePayer: original.feePayer ?? null,
    blockhash: unsigned.recentBlockhash,
    lastValidBlockHeight: unsigned.lastValidBlockHeight,
  }).add(...instructions(original.instructions));
  tx.sign(...signers);
  return tx.serialize().toString('base64');
}

describe('a freeze authority colluding with the taker', () => {
  test("takes both sides: the maker's redeem fails on a frozen vault and the taker refunds after expiry", async () => {
    const attacker = Keypair.generate();
    const config = resolveConfig(defaultConfigDocument());
    const chain = chainWithHostileBonk(dataDir(), config, attacker.publicKey);
    try {
      const input = 50_000_000n * 10n ** 5n; // BONK
      const output = 1_000n * 10n ** 6n; // USDC
      const taker = Keypair.generate();
      await chain.airdrop({ wallet: taker.publicKey, mint: BONK, amount: input });

      // An ordinary swap up to both locks: BONK in the taker escrow, USDC in the maker escrow.
      const { preimage, hashlock } = secret();
      const now = await chain.now();
      const takerExpiry = now + 600n;
      const lock = await chain.buildTakerLock({
        taker: taker.publicKey,
        inputMint: BONK,
        outputMint: USDC,
        amount: input,
        hashlock,
        expiry: takerExpiry,
        lockDeadline: now + 60n,
      });
      await chain.submitSigned(walletSign(lock, taker));
      const [takerEscrow] = takerEscrowAddress(chain.programId, taker.publicKey, hashlock);
      const makerLock = await chain.signMakerLock({
        takerEscrow,
        taker: taker.publicKey,
        inputMint: BONK,
        inputAmount: input,
        takerExpiry,
        outputMint: USDC,
        amount: output,
        hashlock,
        expiry: now + 300n,
        lockDeadline: now + 60n,
      });
      expect(await chain.land(makerLock, 'finalized', 5_000)).toMatchObject({ err: null });

      // The attack: one transaction redeems the maker escrow and freezes the taker escrow's vault.
      const redeem = await chain.buildTakerRedeem({
        taker: taker.publicKey,
        takerEscrow,
        outputMint: USDC,
        preimage,
      });
      const [takerVault] = vaultAddress(chain.programId, takerEscrow);
      const freeze = createFreezeAccountInstruction(takerVault, BONK, attacker.publicKey);
      await chain.submitSigned(withAccomplice(redeem, (ixs) => [...ixs, freeze], [taker, attacker]));
      expect(await chain.tokenBalance(taker.publicKey, USDC)).toBe(output);

      // The maker learnt the preimage and redeems the taker escrow, as it should; SPL Token says AccountFrozen (17).
      const [makerEscrow] = makerEscrowAddress(chain.programId, takerEscrow);
      const revealed = (await chain.readEscrow(makerEscrow, 'finalized'))?.preimage as Uint8Array;
      const makerRedeem = await chain.signMakerRedeem({ takerEscrow, inputMint: BONK, preimage: revealed });
      const landed = await chain.land(makerRedeem, 'finalized', 5_000);
      expect(landed).toMatchObject({ status: 'finalized', err: expect.stringMatching(/Custom\(17\)/) });

      // After the taker expiry the vault is thawed and the taker refunds: it keeps the USDC and its BONK.
      await chain.advanceClock(Number(takerExpiry - (await chain.now())) + 1);
      const refund = await chain.buildTakerRefund({ taker: taker.publicKey, takerEscrow, inputMint: BONK });
      const thaw = createThawAccountInstruction(takerVault, BONK, attacker.publicKey);
      await chain.submitSigned(withAccomplice(refund, (ixs) => [thaw, ...ixs], [taker, attacker]));
      expect(await chain.tokenBalance(taker.publicKey, BONK)).toBe(input);
      expect(await chain.tokenBalance(taker.publicKey, USDC)).toBe(output);
    } finally {
      await chain.close();
    }
  });
});

describe('the start-up check', () => {
  test('refuses a mint whose freeze authority the config does not trust, naming the field and the risk', async () => {
    const attacker = Keypair.generate().publicKey;
    const dir = dataDir();
    const config = resolveConfig(defaultConfigDocument());
    await chainWithHostileBonk(dir, config, attacker).close();

    const start = createService({ dataDir: dir, config });
    await expect(start).rejects.toBeInstanceOf(ConfigError);
    await expect(start).rejects.toThrow(
      `config assets[${BONK_INDEX}].trust_freeze_authority: BONK's mint has freeze authority ${attacker.toBase58()}`,
    );
    await expect(start).rejects.toThrow(/keeping both sides.*trust_freeze_authority: true/);
  });

  test('starts on the same chain once the config trusts that issuer', async () => {
    const dir = dataDir();
    const doc = defaultConfigDocument();
    nth(doc.assets, BONK_INDEX).trust_freeze_authority = true;
    const config = resolveConfig(doc);
    await chainWithHostileBonk(dir, config, Keypair.generate().publicKey).close();

    const service = await createService({ dataDir: dir, config });
    await service.close();
    expect(service.config.assets.list[BONK_INDEX]?.trustFreezeAuthority).toBe(true);
  });
});
