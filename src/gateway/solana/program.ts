// Our own GatewayMinter and GatewayWallet programs (programs/gateway-minter, programs/gateway-wallet):
// where the embedded chain deploys them and their committed binaries. On devnet and mainnet the ids are
// Circle's (GATEWAY_SOLANA_PROGRAMS in ../formats).

import { readFileSync } from 'node:fs';
import { PublicKey } from '@solana/web3.js';
import { rootPath } from '../../paths.ts';

/** Generated once; only the public keys are kept. */
export const EMBEDDED_GATEWAY_MINTER_ID = new PublicKey('FPZkXFg78SCbKB9dZVW21HA6FR48SiD2wbndxtHKvTUG');
export const EMBEDDED_GATEWAY_WALLET_ID = new PublicKey('7Pzh7PeFRoGKJBXbCuYWYF9P393NqHf3UGXLFeLhKb2d');

export const GATEWAY_MINTER_PROGRAM_PATH = rootPath('programs', 'gateway-minter', 'gateway_minter.so');
export const GATEWAY_WALLET_PROGRAM_PATH = rootPath('programs', 'gateway-wallet', 'gateway_wallet.so');

export const loadGatewayMinterProgram = (): Uint8Array =>
  new Uint8Array(readFileSync(GATEWAY_MINTER_PROGRAM_PATH));

export const loadGatewayWalletProgram = (): Uint8Array =>
  new Uint8Array(readFileSync(GATEWAY_WALLET_PROGRAM_PATH));
