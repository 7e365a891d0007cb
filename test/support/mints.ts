// The mints tests trade, at their mainnet addresses (the embedded chain creates them there): native SOL
// (also the mint network fees are paid in), USDC and USDT. Pure constants, so unit suites can share them
// without pulling in a chain.
export const SOL_MINT = 'So11111111111111111111111111111111111111112';
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';

/** The symbol each of these mints trades as in the default config. */
export const MINT_SYMBOLS: Readonly<Record<string, string>> = {
  [SOL_MINT]: 'SOL',
  [USDC_MINT]: 'USDC',
  [USDT_MINT]: 'USDT',
};
