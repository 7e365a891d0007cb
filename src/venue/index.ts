// Front door of the venue: the constant-product AMM program's client (addresses, instruction builders, pool
// decoding, error names, the committed binary), its arithmetic as pure functions, and the embedded venue
// built on them (pools seeded at genesis, the keeper that arbitrages them to the Pyth mid, and the
// Jupiter-shaped HTTP API the aggregator port talks to).

export { canonicalMints, poolAddress, poolVaultAddress } from './addresses.ts';
export { AMM_ERROR_BASE, AMM_ERROR_NAMES, type AmmErrorName, ammErrorCode, ammErrorName } from './errors.ts';
export {
  AMM_INSTRUCTION_TAGS,
  encodeSwapData,
  initializePoolInstruction,
  liquidityInstruction,
  poolAccounts,
  swapInstruction,
} from './instructions.ts';
export { decodePool, isPoolData, POOL_OFFSETS, POOL_SIZE, POOL_VERSION, type PoolState } from './layout.ts';
export {
  amountAfterFee,
  amountInToReach,
  BPS,
  deviationBps,
  minimumOut,
  priceImpact,
  type Ratio,
  type Reserves,
  type SwapOutcome,
  spotPrice,
  swapExactIn,
  U64_MAX,
} from './math.ts';
export { AMM_PROGRAM_PATH, DEFAULT_AMM_PROGRAM_ID, loadAmmProgram } from './program.ts';
