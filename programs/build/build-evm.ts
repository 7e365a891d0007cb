// Builds the dev Gateway's EVM contracts (programs/gateway-evm/*.sol) with solc-js, the npm registry's
// Solidity compiler at the version package.json pins, into programs/gateway-evm/build/<Contract>.json: the ABI
// and the creation bytecode the dev Gateway deploys on anvil. The artifacts are committed, so running the
// service needs no compiler.
//   npm run build:evm     compile and write the committed artifacts
//   npm run check:evm     compile and compare; exit 1 if any artifact differs from what the sources give

import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runWhenInvoked } from './script.ts';

/** The contracts compiled, each from programs/gateway-evm/<name>.sol. */
export const EVM_CONTRACTS = ['GatewayWallet', 'DevUsdc'] as const;
export type EvmContractName = (typeof EVM_CONTRACTS)[number];

/** The compiler every artifact was built by: the sources' pragma and package.json pin the same one. */
export const SOLC_VERSION = '0.8.37';

/**
 * Optimised as deployed, for the EVM version anvil runs by default and beyond (cancun). No CBOR metadata
 * appended: the bytecode then depends on the code alone, not on the file's name, comments or the
 * compiler's build.
 */
export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  metadata: { appendCBOR: false },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
} as const;

export interface EvmArtifact {
  contractName: EvmContractName;
  compiler: { name: 'solc-js'; version: string; settings: typeof SOLC_SETTINGS };
  abi: unknown[];
  /** Creation bytecode, 0x-prefixed. */
  bytecode: `0x${string}`;
}

const sourceDir = fileURLToPath(new URL('../gateway-evm/', import.meta.url));
const artifactPath = (name: EvmContractName) => join(sourceDir, 'build', `${name}.json`);

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

interface Solc {
  version(): string;
  compile(input: string): string;
}

/** Compiles every contract; throws on any error or warning (the sources compile clean). */
export function compileEvmContracts(): EvmArtifact[] {
  // solc-js is CommonJS, and loading it (the compiler is a 9 MB Emscripten module) takes a few seconds.
  const solc = createRequire(import.meta.url)('solc') as Solc;
  const version = solc.version();
  if (!version.startsWith(`${SOLC_VERSION}+`)) {
    throw new Error(`solc-js ${version} is installed, the artifacts are built by ${SOLC_VERSION} (npm ci)`);
  }
  const sources = Object.fromEntries(
    EVM_CONTRACTS.map((name) => [
      `${name}.sol`,
      { content: readFileSync(join(sourceDir, `${name}.sol`), 'utf8') },
    ]),
  );
  const output = JSON.parse(
    solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SOLC_SETTINGS })),
  ) as SolcOutput;
  const problems = (output.errors ?? []).filter((entry) => entry.severity !== 'info');
  if (problems.length > 0) throw new Error(problems.map((entry) => entry.formattedMessage).join('\n'));
  return EVM_CONTRACTS.map((name) => {
    const compiled = output.contracts?.[`${name}.sol`]?.[name];
    if (!compiled) throw new Error(`solc produced no ${name}`);
    return {
      contractName: name,
      compiler: { name: 'solc-js', version, settings: SOLC_SETTINGS },
      abi: compiled.abi,
      bytecode: `0x${compiled.evm.bytecode.object}`,
    };
  });
}

/** An artifact as committed: two-space JSON and a final newline. */
export const serializeArtifact = (artifact: EvmArtifact) => `${JSON.stringify(artifact, null, 2)}\n`;

function check(artifact: EvmArtifact): boolean {
  const relative = `programs/gateway-evm/build/${artifact.contractName}.json`;
  let committed: string;
  try {
    committed = readFileSync(artifactPath(artifact.contractName), 'utf8');
  } catch {
    console.error(`${relative} is missing: run \`npm run build:evm\` and commit the result.`);
    return false;
  }
  if (committed !== serializeArtifact(artifact)) {
    console.error(`${relative} is stale: it differs from what ${artifact.contractName}.sol compiles to.`);
    console.error('Run `npm run build:evm` and commit the result.');
    return false;
  }
  console.log(`${relative} matches the source (${(artifact.bytecode.length - 2) / 2} bytes of bytecode)`);
  return true;
}

function main() {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  const artifacts = compileEvmContracts();
  console.log(`compiler: solc-js ${artifacts[0]?.compiler.version}`);
  let ok = true;
  for (const artifact of artifacts) {
    if (values.check) {
      ok = check(artifact) && ok;
      continue;
    }
    writeFileSync(artifactPath(artifact.contractName), serializeArtifact(artifact));
    console.log(`wrote ${artifactPath(artifact.contractName)}`);
  }
  if (!ok) process.exitCode = 1;
}

runWhenInvoked(import.meta.url, main);
