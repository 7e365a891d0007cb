// The dev Gateway's EVM source domain, driven with viem: deploys the USDC and the GatewayWallet on a node,
// deposits, reads balances, and submits the operator's gatewayBurn of intents the depositors signed. The client
// holds no key: each write names the key that signs it (depositor, operator, minter).
import {
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { BurnIntent } from '../formats/burn-intent.ts';
import { burnIntentMessage, transferSpecMessage } from '../formats/eip712.ts';
import { evmAddressBytes32 } from '../formats/evm-signature.ts';
import type { TransferSpec } from '../formats/transfer-spec.ts';
import { devUsdcAbi, devUsdcBytecode, gatewayWalletAbi, gatewayWalletBytecode } from './contracts.ts';
import { EvmDomainError, refusalOf } from './errors.ts';

/** Where the domain's contracts are and who runs them. */
export interface EvmDomainDeployment {
  /** The EVM chain id. */
  chainId: number;
  /** The Gateway domain id burn intents name as their sourceDomain. */
  domain: number;
  usdc: Address;
  gatewayWallet: Address;
  /** The operator: the one address the wallet takes gatewayBurn from. */
  burnSigner: Address;
  feeRecipient: Address;
  /** Mints the dev USDC (the deployer). */
  minter: Address;
}

export interface DeployOptions {
  chainId: number;
  domain: number;
  /** Deploys both contracts and becomes the USDC's minter. */
  deployerKey: Hex;
  /** The burn signer's address (its key signs gatewayBurn calls later). */
  burnSigner: Address;
  feeRecipient: Address;
}

/** One transfer to burn: the intent, its depositor's signature of it, and the fee the operator charges. */
export interface EvmBurn {
  intent: BurnIntent;
  signature: Hex;
  fee: bigint;
}

/** A GatewayBurned event as the chain holds it: its transaction is the trade's `gateway_burn`. */
export interface SeenBurn {
  txHash: Hex;
  blockNumber: bigint;
  transferSpecHash: Hex;
  depositor: Address;
  destinationDomain: number;
  destinationRecipient: Hex;
  value: bigint;
  fee: bigint;
}

type SourceField = 'sourceDomain' | 'sourceContract' | 'sourceToken' | 'sourceDepositor' | 'sourceSigner';

/** Gas for the keys the dev domain uses: far more than any run spends (1 gwei base fee on anvil). */
export const DEV_GAS_BALANCE = 10n ** 21n;

const chainOf = (url: string, chainId: number): Chain =>
  defineChain({
    id: chainId,
    name: 'Gateway dev EVM domain',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });

/** anvil's own methods (balances, mining): a dev node only. */
const devNode = (url: string, chain: Chain) =>
  createTestClient({ chain, mode: 'anvil', transport: http(url) });

export class EvmDomainClient {
  readonly publicClient: PublicClient;
  private readonly chain: Chain;

  constructor(
    readonly url: string,
    readonly deployment: EvmDomainDeployment,
  ) {
    this.chain = chainOf(url, deployment.chainId);
    // A short poll: anvil mines each transaction as it arrives, so a receipt is there at the first look.
    this.publicClient = createPublicClient({ chain: this.chain, transport: http(url), pollingInterval: 50 });
  }

  /** The source half of a TransferSpec from depositor on this domain (the depositor signs: no delegates). */
  sourceFields(depositor: Address): Pick<TransferSpec, SourceField> {
    const { domain, gatewayWallet, usdc } = this.deployment;
    return {
      sourceDomain: domain,
      sourceContract: evmAddressBytes32(gatewayWallet),
      sourceToken: evmAddressBytes32(usdc),
      sourceDepositor: evmAddressBytes32(depositor),
      sourceSigner: evmAddressBytes32(depositor),
    };
  }

  // Reads

  usdcBalance(owner: Address): Promise<bigint> {
    const { usdc } = this.deployment;
    return this.publicClient.readContract({
      address: usdc,
      abi: devUsdcAbi,
      functionName: 'balanceOf',
      args: [owner],
    });
  }

  /** The depositor's Gateway balance on this domain: deposits less burns. */
  availableBalance(depositor: Address): Promise<bigint> {
    const { gatewayWallet, usdc } = this.deployment;
    return this.publicClient.readContract({
      address: gatewayWallet,
      abi: gatewayWalletAbi,
      functionName: 'availableBalance',
      args: [usdc, depositor],
    });
  }

  transferSpecHashUsed(transferSpecHash: Hex): Promise<boolean> {
    return this.publicClient.readContract({
      address: this.deployment.gatewayWallet,
      abi: gatewayWalletAbi,
      functionName: 'usedTransferSpecHash',
      args: [transferSpecHash],
    });
  }

  /** The EIP-712 digest of intent as the contract computes it. */
  burnIntentDigest(intent: BurnIntent): Promise<Hex> {
    return this.publicClient.readContract({
      address: this.deployment.gatewayWallet,
      abi: gatewayWalletAbi,
      functionName: 'burnIntentDigest',
      args: [burnIntentMessage(intent)],
    });
  }

  /** The transfer spec hash as the contract computes it (keccak256 of the spec's byte encoding). */
  transferSpecHash(spec: TransferSpec): Promise<Hex> {
    return this.publicClient.readContract({
      address: this.deployment.gatewayWallet,
      abi: gatewayWalletAbi,
      functionName: 'transferSpecHash',
      args: [transferSpecMessage(spec)],
    });
  }

  /** The burn of transferSpecHash, once mined; undefined while there is none. */
  async findBurn(transferSpecHash: Hex): Promise<SeenBurn | undefined> {
    const [log] = await this.publicClient.getContractEvents({
      address: this.deployment.gatewayWallet,
      abi: gatewayWalletAbi,
      eventName: 'GatewayBurned',
      args: { transferSpecHash },
      fromBlock: 0n,
      strict: true,
    });
    if (!log) return undefined;
    return {
      txHash: log.transactionHash,
      blockNumber: log.blockNumber,
      transferSpecHash: log.args.transferSpecHash,
      depositor: log.args.depositor,
      destinationDomain: log.args.destinationDomain,
      destinationRecipient: log.args.destinationRecipient,
      value: log.args.value,
      fee: log.args.fee,
    };
  }

  blockNumber(): Promise<bigint> {
    return this.publicClient.getBlockNumber({ cacheTime: 0 });
  }

  // Writes (each waits for its receipt; a refusal is an EvmDomainError naming the contract's error, and costs
  // nothing: viem estimates the gas first, where the node runs the call and answers the revert)

  /** Deposits value of the depositor's USDC into its Gateway balance: approve, then deposit. */
  deposit(depositorKey: Hex, value: bigint): Promise<Hex> {
    return this.approveThenDeposit(depositorKey, value);
  }

  /** Deposits value of the sender's USDC into depositor's Gateway balance: approve, then depositFor. */
  depositFor(senderKey: Hex, depositor: Address, value: bigint): Promise<Hex> {
    return this.approveThenDeposit(senderKey, value, depositor);
  }

  /** Approves the wallet for value of the sender's USDC, then deposits it: for the sender itself, or with
   * depositFor for another depositor. */
  private async approveThenDeposit(senderKey: Hex, value: bigint, depositor?: Address): Promise<Hex> {
    const { gatewayWallet, usdc } = this.deployment;
    const wallet = this.wallet(senderKey);
    await this.send('approve', () =>
      wallet.writeContract({
        address: usdc,
        abi: devUsdcAbi,
        functionName: 'approve',
        args: [gatewayWallet, value],
      }),
    );
    if (depositor === undefined) {
      return this.send('deposit', () =>
        wallet.writeContract({
          address: gatewayWallet,
          abi: gatewayWalletAbi,
          functionName: 'deposit',
          args: [usdc, value],
        }),
      );
    }
    return this.send('depositFor', () =>
      wallet.writeContract({
        address: gatewayWallet,
        abi: gatewayWalletAbi,
        functionName: 'depositFor',
        args: [usdc, depositor, value],
      }),
    );
  }

  /** Submits the operator's burn of every given transfer (one transaction, all or nothing); its hash. */
  gatewayBurn(operatorKey: Hex, burns: readonly EvmBurn[]): Promise<Hex> {
    const wallet = this.wallet(operatorKey);
    const intents = burns.map((burn) => burnIntentMessage(burn.intent));
    const signatures = burns.map((burn) => burn.signature);
    const fees = burns.map((burn) => burn.fee);
    return this.send('gatewayBurn', () =>
      wallet.writeContract({
        address: this.deployment.gatewayWallet,
        abi: gatewayWalletAbi,
        functionName: 'gatewayBurn',
        args: [intents, signatures, fees],
      }),
    );
  }

  /** Dev faucet: mints USDC to an account (the minter's key signs). */
  mintUsdc(minterKey: Hex, to: Address, value: bigint): Promise<Hex> {
    const wallet = this.wallet(minterKey);
    return this.send('mint', () =>
      wallet.writeContract({
        address: this.deployment.usdc,
        abi: devUsdcAbi,
        functionName: 'mint',
        args: [to, value],
      }),
    );
  }

  /** Dev faucet: sets an account's gas money (anvil's own method; a dev node only). */
  fundGas(address: Address, wei: bigint = DEV_GAS_BALANCE): Promise<void> {
    return devNode(this.url, this.chain).setBalance({ address, value: wei });
  }

  private wallet(key: Hex) {
    return createWalletClient({
      account: privateKeyToAccount(key),
      chain: this.chain,
      transport: http(this.url),
    });
  }

  private async send(what: string, submit: () => Promise<Hex>): Promise<Hex> {
    let hash: Hex;
    try {
      hash = await submit();
    } catch (error) {
      throw refusalOf(error);
    }
    const receipt = await this.publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new EvmDomainError('reverted', `${what} in ${hash} reverted`);
    return hash;
  }
}

/**
 * Deploys the dev USDC (the deployer its minter) and a GatewayWallet taking it, for the given domain, burn
 * signer and fee recipient; funds the deployer's and the burn signer's gas first. Answers the client.
 */
export async function deployEvmDomain(url: string, options: DeployOptions): Promise<EvmDomainClient> {
  const chain = chainOf(url, options.chainId);
  const publicClient = createPublicClient({ chain, transport: http(url), pollingInterval: 50 });
  const deployer = privateKeyToAccount(options.deployerKey);
  await devNode(url, chain).setBalance({ address: deployer.address, value: DEV_GAS_BALANCE });
  await devNode(url, chain).setBalance({ address: options.burnSigner, value: DEV_GAS_BALANCE });
  const wallet = createWalletClient({ account: deployer, chain, transport: http(url) });
  const deployed = async (hash: Hex, what: string): Promise<Address> => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success' || !receipt.contractAddress)
      throw new Error(`deploying ${what} failed (${hash})`);
    return receipt.contractAddress;
  };
  const usdc = await deployed(
    await wallet.deployContract({ abi: devUsdcAbi, bytecode: devUsdcBytecode, args: [deployer.address] }),
    'DevUsdc',
  );
  const gatewayWallet = await deployed(
    await wallet.deployContract({
      abi: gatewayWalletAbi,
      bytecode: gatewayWalletBytecode,
      args: [usdc, options.domain, options.burnSigner, options.feeRecipient],
    }),
    'GatewayWallet',
  );
  return new EvmDomainClient(url, {
    chainId: options.chainId,
    domain: options.domain,
    usdc,
    gatewayWallet,
    burnSigner: options.burnSigner,
    feeRecipient: options.feeRecipient,
    minter: deployer.address,
  });
}
