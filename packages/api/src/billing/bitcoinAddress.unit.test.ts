import { pbkdf2Sync } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { describe, expect, it } from 'vitest';
import { bip21Uri, deriveAddress, ExtendedKeyError, parseAccountKey } from './bitcoinAddress.js';

// BIP-0084 test vectors (bitcoin/bips bip-0084.mediawiki).
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const ACCOUNT_ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const FIRST_RECEIVE = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const SECOND_RECEIVE = 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g';
const FIRST_CHANGE = 'bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el';
const ZPUB_VERSIONS = { public: 0x04b24746, private: 0x04b2430c };

describe('BIP84 derivation', () => {
  it('derives the published addresses from the account zpub', () => {
    const account = parseAccountKey(ACCOUNT_ZPUB, 'mainnet');
    expect(deriveAddress(account, 'mainnet', 0)).toBe(FIRST_RECEIVE);
    expect(deriveAddress(account, 'mainnet', 1)).toBe(SECOND_RECEIVE);
    expect(deriveAddress(account, 'mainnet', 0, 1)).toBe(FIRST_CHANGE);
  });

  it('the zpub is the one the mnemonic gives at m/84h/0h/0h (BIP39 seed by PBKDF2)', () => {
    const seed = pbkdf2Sync(MNEMONIC.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
    const account = HDKey.fromMasterSeed(seed, ZPUB_VERSIONS).derive("m/84'/0'/0'");
    expect(account.publicExtendedKey).toBe(ACCOUNT_ZPUB);
  });

  it('accepts the same account as an xpub (version bytes converted)', () => {
    const zpub = HDKey.fromExtendedKey(ACCOUNT_ZPUB, { public: ZPUB_VERSIONS.public, private: 0 });
    const xpub = new HDKey({
      versions: { public: 0x0488b21e, private: 0x0488ade4 },
      depth: zpub.depth,
      index: zpub.index,
      parentFingerprint: zpub.parentFingerprint,
      chainCode: zpub.chainCode as Uint8Array,
      publicKey: zpub.publicKey as Uint8Array,
    }).publicExtendedKey;
    expect(xpub.startsWith('xpub')).toBe(true);
    expect(deriveAddress(parseAccountKey(xpub, 'mainnet'), 'mainnet', 0)).toBe(FIRST_RECEIVE);
  });

  it('refuses private keys, unknown prefixes, wrong networks and garbage', () => {
    const seed = pbkdf2Sync(MNEMONIC, 'mnemonic', 2048, 64, 'sha512');
    const xprv = HDKey.fromMasterSeed(seed).derive("m/84'/0'/0'").privateExtendedKey;
    expect(() => parseAccountKey(xprv, 'mainnet')).toThrow(ExtendedKeyError);
    expect(() => parseAccountKey('ypub123', 'mainnet')).toThrow(/must start with/);
    expect(() => parseAccountKey(ACCOUNT_ZPUB, 'testnet')).toThrow(/mainnet key/);
    expect(() => parseAccountKey('zpub6rFR7y4Q2AijBEqTUqu', 'mainnet')).toThrow(ExtendedKeyError);
  });

  it('testnet vpub gives tb1 addresses', () => {
    const seed = pbkdf2Sync(MNEMONIC, 'mnemonic', 2048, 64, 'sha512');
    const vpub = HDKey.fromMasterSeed(seed, { public: 0x045f1cf6, private: 0x045f18bc }).derive("m/84'/1'/0'").publicExtendedKey;
    // BIP84 has no testnet vector; this one is widely published for the same mnemonic.
    expect(deriveAddress(parseAccountKey(vpub, 'testnet'), 'testnet', 0)).toBe('tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl');
  });
});

describe('BIP21', () => {
  it('builds a URI with the exact amount and an encoded label', () => {
    expect(bip21Uri(FIRST_RECEIVE, '0.005', 'Velvet Rose Annual Premium')).toBe(
      `bitcoin:${FIRST_RECEIVE}?amount=0.005&label=Velvet%20Rose%20Annual%20Premium`,
    );
  });
});
