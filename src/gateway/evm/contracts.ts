// The dev EVM domain's two contracts as viem sees them: typed ABIs (declared here, in Solidity's words, so that
// every call and event is typed; test/gateway/evm-contracts.test.ts holds them equal to what solc compiled)
// and the committed creation bytecode (programs/gateway-evm/build/, rebuilt by `npm run build:evm`).
import { type Hex, parseAbi } from 'viem';
import devUsdcArtifact from '../../../programs/gateway-evm/build/DevUsdc.json' with { type: 'json' };
import gatewayWalletArtifact from '../../../programs/gateway-evm/build/GatewayWallet.json' with {
  type: 'json',
};

export const gatewayWalletAbi = parseAbi([
  'struct TransferSpec { uint32 version; uint32 sourceDomain; uint32 destinationDomain; bytes32 sourceContract; bytes32 destinationContract; bytes32 sourceToken; bytes32 destinationToken; bytes32 sourceDepositor; bytes32 destinationRecipient; bytes32 sourceSigner; bytes32 destinationCaller; uint256 value; bytes32 salt; bytes hookData; }',
  'struct BurnIntent { uint256 maxBlockHeight; uint256 maxFee; TransferSpec spec; }',
  'constructor(address token_, uint32 domain_, address burnSigner_, address feeRecipient_)',
  'function TRANSFER_SPEC_VERSION() view returns (uint32)',
  'function domainSeparator() view returns (bytes32)',
  'function token() view returns (address)',
  'function domain() view returns (uint32)',
  'function burnSigner() view returns (address)',
  'function feeRecipient() view returns (address)',
  'function usedTransferSpecHash(bytes32 transferSpecHash) view returns (bool used)',
  'function deposit(address token_, uint256 value)',
  'function depositFor(address token_, address depositor, uint256 value)',
  'function availableBalance(address token_, address depositor) view returns (uint256)',
  'function gatewayBurn(BurnIntent[] intents, bytes[] signatures, uint256[] fees)',
  'function burnIntentDigest(BurnIntent intent) view returns (bytes32)',
  'function transferSpecHash(TransferSpec spec) pure returns (bytes32)',
  'event Deposited(address indexed token, address indexed depositor, address indexed sender, uint256 value)',
  'event GatewayBurned(address indexed token, address indexed depositor, bytes32 indexed transferSpecHash, uint32 destinationDomain, bytes32 destinationRecipient, address signer, uint256 value, uint256 fee)',
  'error UnsupportedToken(address token)',
  'error ZeroValue()',
  'error TokenTransferFailed()',
  'error NotBurnSigner(address caller)',
  'error LengthMismatch()',
  'error UnsupportedVersion(uint32 version)',
  'error WrongSourceDomain(uint32 sourceDomain)',
  'error WrongSourceContract(bytes32 sourceContract)',
  'error WrongSourceToken(bytes32 sourceToken)',
  'error NotAnAddress(bytes32 value)',
  'error SignerNotDepositor(address signer, address depositor)',
  'error BurnIntentExpired(uint256 maxBlockHeight, uint256 blockNumber)',
  'error FeeAboveMaxFee(uint256 fee, uint256 maxFee)',
  'error InvalidSignature(address expected, address recovered)',
  'error TransferSpecHashUsed(bytes32 transferSpecHash)',
  'error InsufficientBalance(address depositor, uint256 available, uint256 needed)',
]);

export const devUsdcAbi = parseAbi([
  'constructor(address minter_)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function minter() view returns (address)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address owner) view returns (uint256 value)',
  'function allowance(address owner, address spender) view returns (uint256 value)',
  'function mint(address to, uint256 value)',
  'function burn(uint256 value)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'error NotMinter(address caller)',
  'error InsufficientBalance(address owner, uint256 balance, uint256 needed)',
  'error InsufficientAllowance(address owner, address spender, uint256 allowance, uint256 needed)',
  'error ZeroAddress()',
]);

/** What solc compiled, as committed: the ABIs above are checked against these. */
export const compiledAbis = { GatewayWallet: gatewayWalletArtifact.abi, DevUsdc: devUsdcArtifact.abi };

export const gatewayWalletBytecode = gatewayWalletArtifact.bytecode as Hex;
export const devUsdcBytecode = devUsdcArtifact.bytecode as Hex;
