/**
 * Receiving addresses. With a fixed address every payment uses it (the spec's behaviour); with a
 * BIP84 account extended public key (xpub/zpub, or tpub/vpub on testnet) each payment request gets
 * the next external address m/84'/coin'/account'/0/i. Only public keys are involved: derivation is
 * non-hardened, so no private key ever touches the server.
 */
import { HDKey } from '@scure/bip32';
import { Address, NETWORK, OutScript, p2wpkh, TEST_NETWORK } from '@scure/btc-signer';

export type BitcoinNetwork = 'mainnet' | 'testnet' | 'regtest';

/** A regtest node's parameters: testnet's, with its own bech32 prefix (Bitcoin Core's `bcrt`). */
export const REGTEST_NETWORK = { ...TEST_NETWORK, bech32: 'bcrt' };

/** btc-signer's network parameters for a site network. */
export const networkParams = (network: BitcoinNetwork) =>
  network === 'mainnet' ? NETWORK : network === 'regtest' ? REGTEST_NETWORK : TEST_NETWORK;

/** Account keys of testnet serve regtest too (BIP32 defines no regtest versions). */
const keyNetwork = (network: BitcoinNetwork) => (network === 'regtest' ? 'testnet' : network);

/** SLIP-0132 version bytes of the extended public keys we accept, per network. */
const PUBLIC_VERSIONS: Record<string, { network: BitcoinNetwork; version: number }> = {
  xpub: { network: 'mainnet', version: 0x0488b21e },
  zpub: { network: 'mainnet', version: 0x04b24746 },
  tpub: { network: 'testnet', version: 0x043587cf },
  vpub: { network: 'testnet', version: 0x045f1cf6 },
};

export class ExtendedKeyError extends Error {}

/** Parses an account-level extended public key; rejects private keys and other networks. */
export function parseAccountKey(extendedKey: string, network: BitcoinNetwork): HDKey {
  const prefix = extendedKey.slice(0, 4);
  const known = PUBLIC_VERSIONS[prefix];
  if (!known) throw new ExtendedKeyError(`bitcoin.xpub must start with xpub, zpub, tpub or vpub (got "${prefix}")`);
  if (known.network !== keyNetwork(network))
    throw new ExtendedKeyError(`bitcoin.xpub is a ${known.network} key but bitcoin.network is ${network}`);
  let key: HDKey;
  try {
    // Only the public version matters; the private one is never used (a private key is refused below).
    key = HDKey.fromExtendedKey(extendedKey, { public: known.version, private: 0 });
  } catch (err) {
    throw new ExtendedKeyError(`bitcoin.xpub is not a valid extended public key: ${(err as Error).message}`);
  }
  if (key.privateKey) throw new ExtendedKeyError('bitcoin.xpub must be a public key, never a private one');
  return key;
}

/**
 * The native segwit (P2WPKH, bech32) address at `change/index` below an account key.
 * @example deriveAddress(accountZpub, 'mainnet', 0) // 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' for the BIP84 vector
 */
export function deriveAddress(account: HDKey, network: BitcoinNetwork, index: number, change: 0 | 1 = 0): string {
  const child = account.deriveChild(change).deriveChild(index);
  if (!child.publicKey) throw new ExtendedKeyError('derivation produced no public key');
  const address = p2wpkh(child.publicKey, networkParams(network)).address;
  if (!address) throw new ExtendedKeyError('could not encode the address');
  return address;
}

/**
 * The output script (hex) an address stands for on the site's network: what payments are compared
 * by, since nodes spell one script differently (a bcoin regtest node `rb1…`, Bitcoin Core `bcrt1…`).
 * Undefined when the address is not valid there.
 */
export function outputScriptOf(address: string, network: BitcoinNetwork): string | undefined {
  try {
    return Buffer.from(OutScript.encode(Address(networkParams(network)).decode(address))).toString('hex');
  } catch {
    return undefined;
  }
}

/** Builds a BIP21 payment URI: `bitcoin:ADDRESS?amount=0.005&label=...`. */
export function bip21Uri(address: string, btcAmount: string, label: string): string {
  return `bitcoin:${address}?amount=${btcAmount}&label=${encodeURIComponent(label)}`;
}
