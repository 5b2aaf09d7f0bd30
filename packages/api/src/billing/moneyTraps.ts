/**
 * Settings that would send members' money where the operator cannot spend it, refused when
 * NODE_ENV=production (main.ts exits 2 naming the setting; issue 38 item 6):
 * - a receiving address or account key of a **published test vector**: its private key is printed in
 *   a BIP, so anyone can sweep what is paid to it. The example site config ships one
 *   (`bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu`, BIP84's first address) as a dev default;
 * - an address that is not valid on `bitcoin.network` (a testnet address on a mainnet site, a typo);
 * - a test network (`bitcoin.network` other than mainnet) unless `ALLOW_TEST_NETWORK=true` says so
 *   out loud (a staging site).
 * The vectors are derived here from their mnemonics rather than listed, so the first addresses
 * (receive and change, mainnet and testnet, BIP84 native segwit, BIP49 nested and BIP44 legacy) of
 * account 0 are all covered, and the derivation is checked against the BIPs' published addresses in
 * moneyTraps.unit.test.ts.
 */
import { pbkdf2Sync } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { Address, NETWORK, p2pkh, p2sh, p2wpkh, TEST_NETWORK } from '@scure/btc-signer';
import type { SiteConfig } from '../config/site.js';
import { type BitcoinNetwork, parseAccountKey, REGTEST_NETWORK } from './bitcoinAddress.js';

/** Mnemonics whose keys are public knowledge: the test vectors of BIP39/BIP44/BIP49/BIP84 and of most wallets' docs. */
export const PUBLISHED_TEST_MNEMONICS = [
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
  'legal winner thank year wave sausage worth useful legal winner thank yellow',
  'letter advice cage absurd amount doctor acoustic avoid letter advice cage above',
  'zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong',
] as const;

/**
 * How many addresses of each chain (receive, change) of account 0 are listed: the first ten of BIP84
 * (the receiving scheme this site derives), the first three of BIP49 and BIP44 (a fixed address may
 * be of any kind). About 250 derivations, done once at a production start (~0.2 s).
 */
const INDEXES: Record<number, number> = { 84: 10, 49: 3, 44: 3 };

/** BIP39: the seed of a mnemonic (no passphrase). */
export function mnemonicSeed(mnemonic: string, passphrase = ''): Uint8Array {
  return pbkdf2Sync(mnemonic.normalize('NFKD'), `mnemonic${passphrase}`.normalize('NFKD'), 2048, 64, 'sha512');
}

interface Vectors {
  /** Every address string of the vectors, both networks. */
  addresses: Set<string>;
  /** Account public keys (hex of public key + chain code), whatever the version bytes (xpub, zpub, tpub, vpub). */
  accountKeys: Set<string>;
}

let vectors: Vectors | undefined;

const keyId = (key: HDKey) => `${Buffer.from(key.publicKey ?? []).toString('hex')}:${Buffer.from(key.chainCode ?? []).toString('hex')}`;

/** Derived once, on the first production check (a few ms of hashing per mnemonic). */
function testVectors(): Vectors {
  if (vectors) return vectors;
  const addresses = new Set<string>();
  const accountKeys = new Set<string>();
  for (const mnemonic of PUBLISHED_TEST_MNEMONICS) {
    const root = HDKey.fromMasterSeed(mnemonicSeed(mnemonic));
    for (const [coin, net] of [
      [0, NETWORK],
      [1, TEST_NETWORK],
    ] as const) {
      for (const purpose of [84, 49, 44]) {
        const accountKey = root.derive(`m/${purpose}'/${coin}'/0'`);
        accountKeys.add(keyId(accountKey));
        for (const change of [0, 1]) {
          const chain = accountKey.deriveChild(change);
          for (let i = 0; i < (INDEXES[purpose] as number); i++) {
            const pub = chain.deriveChild(i).publicKey as Uint8Array;
            const address =
              purpose === 84 ? p2wpkh(pub, net).address : purpose === 49 ? p2sh(p2wpkh(pub, net), net).address : p2pkh(pub, net).address;
            if (address) addresses.add(address);
            // A regtest node's bech32 prefix (bcrt1…) for the same script.
            if (purpose === 84 && coin === 1) {
              const regtest = p2wpkh(pub, { ...TEST_NETWORK, bech32: 'bcrt' }).address;
              if (regtest) addresses.add(regtest);
            }
          }
        }
      }
    }
  }
  vectors = { addresses, accountKeys };
  return vectors;
}

/** True when `address` belongs to a published test vector (case-insensitive: bech32 may be written in capitals). */
export function isTestVectorAddress(address: string): boolean {
  const v = testVectors();
  return v.addresses.has(address) || v.addresses.has(address.toLowerCase());
}

/** True when the extended public key is a published test vector's account key, in any of its encodings. */
export function isTestVectorAccountKey(account: HDKey): boolean {
  return testVectors().accountKeys.has(keyId(account));
}

/** The network an address string is valid on, or undefined when it is valid on none. */
export function addressNetwork(address: string): BitcoinNetwork | undefined {
  for (const [name, net] of [
    ['mainnet', NETWORK],
    ['testnet', TEST_NETWORK],
    ['regtest', REGTEST_NETWORK],
  ] as const) {
    try {
      Address(net).decode(address);
      return name;
    } catch {
      // not this network's
    }
  }
  return undefined;
}

/**
 * What is wrong with the Bitcoin settings for a production site, one line per problem, each naming
 * its setting; empty when nothing is.
 */
export function productionBitcoinProblems(
  bitcoin: Pick<SiteConfig['bitcoin'], 'network' | 'address' | 'xpub'>,
  env: { ALLOW_TEST_NETWORK?: boolean },
): string[] {
  const problems: string[] = [];
  if (bitcoin.network !== 'mainnet' && !env.ALLOW_TEST_NETWORK)
    problems.push(
      `bitcoin.network is ${bitcoin.network}: a production site takes mainnet payments (set ALLOW_TEST_NETWORK=true for a staging site on a test network)`,
    );
  if (bitcoin.address) {
    const network = addressNetwork(bitcoin.address);
    if (isTestVectorAddress(bitcoin.address))
      problems.push(
        `bitcoin.address ${bitcoin.address} is a published test-vector address: its private key is public, anyone can take what members pay to it. Set your own wallet's address (or bitcoin.xpub)`,
      );
    else if (!network) problems.push(`bitcoin.address ${bitcoin.address} is not a valid Bitcoin address`);
    // testnet and regtest share their base58 prefixes: a legacy address is valid on both.
    else if (network !== bitcoin.network && !(bitcoin.network === 'regtest' && network === 'testnet' && !/^tb1/i.test(bitcoin.address)))
      problems.push(`bitcoin.address ${bitcoin.address} is a ${network} address but bitcoin.network is ${bitcoin.network}`);
  }
  if (bitcoin.xpub) {
    try {
      // Refuses another network's key and private keys (the same check as at every start).
      const account = parseAccountKey(bitcoin.xpub, bitcoin.network);
      if (isTestVectorAccountKey(account))
        problems.push(
          'bitcoin.xpub is a published test-vector account key: its private key is public, anyone can take what members pay to its addresses. Set your own wallet’s account key',
        );
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  return problems;
}
