// The mints of the SOL/USDC pair most tests trade: native SOL (also the mint network fees are paid in)
// and mainnet USDC. Pure constants, so unit suites can share them without pulling in a chain.
export const SOL_MINT = 'So11111111111111111111111111111111111111112';
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
