// Test harness: a litesvm chain with the committed HTLC program, accounts placed directly with
// setAccount, and web3.js 1.x transactions crossed over to litesvm as the notes describe.

import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { address, getTransactionDecoder, lamports } from '@solana/kit';
import {
  ACCOUNT_SIZE,
  AccountLayout,
  MINT_SIZE,
  MintLayout,
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import { Keypair, PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { Clock, FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { DEFAULT_HTLC_PROGRAM_ID, htlcErrorName, loadHtlcProgram } from '../../src/chain/htlc/index.ts';

export const START_TIME = 1_700_000_000n;

export interface Outcome {
  ok: boolean;
  logs: string[];
  computeUnits: bigint;
  /** Custom error code returned by the HTLC program itself (not by a CPI callee). */
  code?: number;
  /** The HTLC error name: from the code, cross-checked against the program's own log line. */
  errorName?: string;
  /** The runtime's description of any failure. */
  error?: string;
  /** The signed wire bytes, for replay tests. */
  wire: Uint8Array;
}

const toAddress = (key: PublicKey) => address(key.toBase58());
const txDecoder = getTransactionDecoder();

export class HtlcChain {
  readonly svm: LiteSVM;
  readonly programId = DEFAULT_HTLC_PROGRAM_ID;
  private slot = 1n;

  constructor(options: { nativeMints?: boolean } = {}) {
    this.svm = new LiteSVM();
    if (options.nativeMints) this.svm.withNativeMints();
    this.svm.addProgram(toAddress(this.programId), loadHtlcProgram());
    this.setTime(START_TIME);
  }

  now(): bigint {
    return this.svm.getClock().unixTimestamp;
  }

  /** Moves chain time (and the slot, so identical transactions get fresh blockhashes). */
  setTime(unix: bigint): void {
    this.slot += 1n;
    this.svm.setClock(new Clock(this.slot, unix, 0n, 0n, unix));
  }

  advance(seconds: bigint): void {
    this.setTime(this.now() + seconds);
  }

  wallet(sol = 10n): Keypair {
    const kp = Keypair.generate();
    this.svm.airdrop(toAddress(kp.publicKey), lamports(sol * 1_000_000_000n));
    return kp;
  }

  rent(size: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(size));
  }

  createMint(authority: PublicKey, decimals = 6, at: PublicKey = Keypair.generate().publicKey): PublicKey {
    const data = Buffer.alloc(MINT_SIZE);
    MintLayout.encode(
      {
        mintAuthorityOption: 1,
        mintAuthority: authority,
        supply: 0n,
        decimals,
        isInitialized: true,
        freezeAuthorityOption: 0,
        freezeAuthority: PublicKey.default,
      },
      data,
    );
    this.place(at, data, TOKEN_PROGRAM_ID, this.rent(MINT_SIZE));
    return at;
  }

  /** A token account of `mint` owned by `owner` holding `amount` (wrapped SOL backed by lamports). */
  createTokenAccount(
    owner: PublicKey,
    mint: PublicKey,
    amount: bigint,
    at: PublicKey = Keypair.generate().publicKey,
  ): PublicKey {
    const native = mint.equals(NATIVE_MINT);
    const reserve = this.rent(ACCOUNT_SIZE);
    const data = Buffer.alloc(ACCOUNT_SIZE);
    AccountLayout.encode(
      {
        mint,
        owner,
        amount,
        delegateOption: 0,
        delegate: PublicKey.default,
        state: 1,
        isNativeOption: native ? 1 : 0,
        isNative: native ? reserve : 0n,
        delegatedAmount: 0n,
        closeAuthorityOption: 0,
        closeAuthority: PublicKey.default,
      },
      data,
    );
    this.place(at, data, TOKEN_PROGRAM_ID, native ? reserve + amount : reserve);
    return at;
  }

  place(at: PublicKey, data: Uint8Array, owner: PublicKey, lamportsValue: bigint, executable = false): void {
    this.svm.setAccount({
      address: toAddress(at),
      data,
      executable,
      lamports: lamports(lamportsValue),
      programAddress: toAddress(owner),
      space: BigInt(data.length),
    });
  }

  account(key: PublicKey): { data: Uint8Array; lamports: bigint; owner: PublicKey } | null {
    const acc = this.svm.getAccount(toAddress(key));
    if (!acc.exists) return null;
    return {
      data: new Uint8Array(acc.data),
      lamports: acc.lamports,
      owner: new PublicKey(acc.programAddress),
    };
  }

  lamports(key: PublicKey): bigint {
    return this.account(key)?.lamports ?? 0n;
  }

  tokenBalance(key: PublicKey): bigint {
    const acc = this.account(key);
    if (!acc?.owner.equals(TOKEN_PROGRAM_ID) || acc.data.length !== ACCOUNT_SIZE) return 0n;
    return AccountLayout.decode(acc.data).amount;
  }

  /** Builds, signs (first signer pays) and sends a legacy transaction. */
  send(instructions: TransactionInstruction[], signers: Keypair[]): Outcome {
    const [payer] = signers;
    if (!payer) throw new Error('send needs a fee payer');
    // A fresh blockhash per transaction, as on a real chain over time: two honest transactions with
    // the same instructions and signers must not collide as "already processed".
    this.svm.expireBlockhash();
    const tx = new Transaction().add(...instructions);
    tx.recentBlockhash = this.svm.latestBlockhash();
    tx.feePayer = payer.publicKey;
    signFast(tx, signers);
    return this.sendWire(tx.serialize({ verifySignatures: false }));
  }

  sendWire(wire: Uint8Array): Outcome {
    const result = this.svm.sendTransaction(txDecoder.decode(wire));
    if (result instanceof FailedTransactionMetadata) {
      const meta = result.meta();
      const logs = meta.logs();
      const err = result.err();
      const code = customCode(err);
      // A custom code is the HTLC program's only if the program itself logged the failure.
      const logged = logs.map((l) => /htlc: error (\w+)/.exec(l)?.[1]).find(Boolean);
      const name = code !== undefined && logged === htlcErrorName(code) ? logged : undefined;
      return {
        ok: false,
        logs,
        computeUnits: meta.computeUnitsConsumed(),
        ...(name !== undefined ? { code, errorName: name } : {}),
        error: describeError(err, code),
        wire,
      };
    }
    return { ok: true, logs: result.logs(), computeUnits: result.computeUnitsConsumed(), wire };
  }
}

// litesvm's TransactionErrorFieldless is a const enum (unusable under isolatedModules); the names
// the tests meet, by value.
const FIELDLESS_TRANSACTION_ERRORS: Record<number, string> = {
  2: 'AccountNotFound',
  6: 'AlreadyProcessed',
  7: 'BlockhashNotFound',
  9: 'MissingSignatureForFee',
  11: 'SignatureFailure',
};

// The error classes are not exported at runtime, so recognise them by shape.
function instructionError(err: unknown): unknown {
  if (
    typeof err === 'object' &&
    err !== null &&
    'index' in err &&
    'err' in err &&
    typeof err.err === 'function'
  ) {
    return err.err();
  }
  return undefined;
}

function customCode(err: unknown): number | undefined {
  const inner = instructionError(err);
  if (typeof inner === 'object' && inner !== null && 'code' in inner && typeof inner.code === 'number')
    return inner.code;
  return undefined;
}

function describeError(err: unknown, code: number | undefined): string {
  if (code !== undefined) return `Custom(${code})`;
  const inner = instructionError(err);
  if (inner !== undefined) return `InstructionError(${typeof inner === 'number' ? inner : String(inner)})`;
  if (typeof err === 'number') return FIELDLESS_TRANSACTION_ERRORS[err] ?? `TransactionError(${err})`;
  return String(err);
}

// web3.js signs with pure-JS ed25519 (~20 ms a signature here); node:crypto gives the same
// signatures in microseconds, which keeps the property suites fast.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const signingKeys = new WeakMap<Keypair, KeyObject>();

function signFast(tx: Transaction, signers: Keypair[]): void {
  tx.setSigners(...signers.map((s) => s.publicKey));
  const message = tx.serializeMessage();
  for (const signer of signers) {
    let key = signingKeys.get(signer);
    if (!key) {
      const seed = signer.secretKey.subarray(0, 32);
      key = createPrivateKey({
        key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
        format: 'der',
        type: 'pkcs8',
      });
      signingKeys.set(signer, key);
    }
    tx.addSignature(signer.publicKey, sign(null, message, key));
  }
}

/** Throws with the logs when an outcome is not a success, so test failures explain themselves. */
export function expectOk(outcome: Outcome, what = 'transaction'): Outcome {
  if (!outcome.ok) throw new Error(`${what} failed: ${outcome.error}\n${outcome.logs.join('\n')}`);
  return outcome;
}
