// evm_verify.mjs — compile a Solidity verifier with solc-js and run verifyProof in a real EVM
// (@ethereumjs/evm, its BN254 precompiles 0x06-0x08), for tests/groth16/verifier_evm.sh.
//   node evm_verify.mjs Verifier.sol CONTRACT CALLDATA...
// Each CALLDATA file holds what `zkpipe export calldata` prints: [a],[b],[c],[input]. Prints one
// line a file: "<file> true|false|revert <gas>". Exit 0 when every call ran (whatever it
// returned), 1 when the source does not compile or the contract cannot be deployed.
// An ES module: @ethereumjs/util's CommonJS build require()s @noble/curves, which is ES-module only, and
// node before 20.19 (Debian 12 has 18.20) cannot require() an ES module (ERR_REQUIRE_ESM, issue 37).
import fs from 'node:fs';
import solc from 'solc';
import { createEVM } from '@ethereumjs/evm';
import { Account, createAddressFromString, hexToBytes, bytesToHex } from '@ethereumjs/util';

function compile(path, name) {
  const input = {
    language: 'Solidity',
    sources: { 'Verifier.sol': { content: fs.readFileSync(path, 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['evm.bytecode.object', 'evm.methodIdentifiers'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  let bad = false;
  for (const e of out.errors || []) {
    console.error(e.formattedMessage || e.message);
    if (e.severity === 'error') bad = true;
  }
  const c = !bad && out.contracts && out.contracts['Verifier.sol'] && out.contracts['Verifier.sol'][name];
  if (!c) throw new Error(`solc ${solc.version()}: ${path} did not compile to a contract ${name}`);
  return c;
}

// [a],[b],[c],[input] -> the ABI encoding of verifyProof's static arguments: 32-byte words in order
function encode(selector, text) {
  const args = JSON.parse('[' + text.trim() + ']');
  if (args.length !== 4) throw new Error('calldata: 4 arguments expected, got ' + args.length);
  const words = args.flat(2).map((h) => {
    const v = BigInt(h);
    if (v < 0n || v >= 1n << 256n) throw new Error('calldata: value out of uint256: ' + h);
    return v.toString(16).padStart(64, '0');
  });
  return hexToBytes('0x' + selector + words.join(''));
}

async function main() {
  const [sol, name, ...files] = process.argv.slice(2);
  if (!sol || !name || !files.length) {
    console.error('usage: node evm_verify.mjs Verifier.sol CONTRACT CALLDATA...');
    process.exit(2);
  }
  const c = compile(sol, name);
  const sig = Object.keys(c.evm.methodIdentifiers).find((s) => s.startsWith('verifyProof('));
  if (!sig) throw new Error('no verifyProof in ' + name);
  const evm = await createEVM();
  const caller = createAddressFromString('0x00000000000000000000000000000000000000ee');
  await evm.stateManager.putAccount(caller, new Account(0n, 10n ** 20n));
  const dep = await evm.runCall({ caller, data: hexToBytes('0x' + c.evm.bytecode.object), gasLimit: 10_000_000n });
  if (dep.execResult.exceptionError || !dep.createdAddress)
    throw new Error('deploy failed: ' + (dep.execResult.exceptionError && dep.execResult.exceptionError.error));
  console.error(`${name}: ${sig} deployed at ${dep.createdAddress.toString()} (solc ${solc.version()})`);
  for (const f of files) {
    const r = await evm.runCall({ caller, to: dep.createdAddress, data: encode(c.evm.methodIdentifiers[sig], fs.readFileSync(f, 'utf8')),
      gasLimit: 5_000_000n });
    const rv = r.execResult.returnValue;
    let what;
    if (r.execResult.exceptionError) what = 'revert';
    else if (rv.length === 32 && BigInt(bytesToHex(rv)) === 1n) what = 'true';
    else if (rv.length === 32 && BigInt(bytesToHex(rv)) === 0n) what = 'false';
    else what = 'bad-return:' + bytesToHex(rv);
    console.log(`${f} ${what} ${r.execResult.executionGasUsed}`);
  }
}

main().catch((e) => { console.error('evm_verify: ' + (e && e.message ? e.message : e)); process.exit(1); });
