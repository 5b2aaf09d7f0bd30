import { HDKey } from '@scure/bip32';
import { describe, expect, it } from 'vitest';
import { randomMainnetAddress } from '../../test/siteConfig.js';
import { addressNetwork, isTestVectorAccountKey, isTestVectorAddress, productionBitcoinProblems } from './moneyTraps.js';

/** BIP84's published account key of "abandon … about" (m/84'/0'/0'). */
const BIP84_ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';

describe('published test vectors', () => {
  it("derives the addresses the BIPs print for 'abandon … about' (golden values, not our derivation)", () => {
    // BIP84: m/84'/0'/0'/0/0, /0/1 and the first change address /1/0.
    expect(isTestVectorAddress('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu')).toBe(true);
    expect(isTestVectorAddress('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g')).toBe(true);
    expect(isTestVectorAddress('bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el')).toBe(true);
    // BIP49 (testnet vector): m/49'/1'/0'/0/0.
    expect(isTestVectorAddress('2Mww8dCYPUpKHofjgcXcBCEGmniw9CoaiD2')).toBe(true);
    // BIP44: m/44'/0'/0'/0/0.
    expect(isTestVectorAddress('1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA')).toBe(true);
  });

  it('knows a vector written in capitals (bech32 allows it) and not an address of nobody’s vector', () => {
    expect(isTestVectorAddress('BC1QCR8TE4KR609GCAWUTMRZA0J4XV80JY8Z306FYU')).toBe(true);
    expect(isTestVectorAddress(randomMainnetAddress())).toBe(false);
  });

  it('knows the account key in each encoding (zpub and the same key as xpub)', () => {
    const key = HDKey.fromExtendedKey(BIP84_ZPUB, { public: 0x04b24746, private: 0 });
    expect(isTestVectorAccountKey(key)).toBe(true);
    const asXpub = new HDKey({
      publicKey: key.publicKey as Uint8Array,
      chainCode: key.chainCode as Uint8Array,
      versions: { public: 0x0488b21e, private: 0 },
    });
    expect(isTestVectorAccountKey(HDKey.fromExtendedKey(asXpub.publicExtendedKey))).toBe(true);
    const other = HDKey.fromMasterSeed(new Uint8Array(32).fill(7)).derive("m/84'/0'/0'");
    expect(isTestVectorAccountKey(other)).toBe(false);
  });
});

describe('productionBitcoinProblems', () => {
  const mainnet = { network: 'mainnet' as const, explorerTxUrl: 'https://mempool.space/tx/{txid}', paymentRequestTtlHours: 24 };

  it('names nothing for an address of the operator’s own on mainnet', () => {
    expect(productionBitcoinProblems({ ...mainnet, address: randomMainnetAddress() }, {})).toEqual([]);
  });

  it('names the setting for a vector address, a vector key, a wrong network, an invalid address', () => {
    expect(productionBitcoinProblems({ ...mainnet, address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' }, {})).toEqual([
      expect.stringMatching(/^bitcoin\.address bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu is a published test-vector address/),
    ]);
    expect(productionBitcoinProblems({ ...mainnet, xpub: BIP84_ZPUB }, {})).toEqual([
      expect.stringMatching(/^bitcoin\.xpub is a published test-vector account key/),
    ]);
    expect(productionBitcoinProblems({ ...mainnet, address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' }, {})).toEqual([
      'bitcoin.address tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx is a testnet address but bitcoin.network is mainnet',
    ]);
    expect(productionBitcoinProblems({ ...mainnet, address: 'bc1qnotanaddress' }, {})).toEqual([
      'bitcoin.address bc1qnotanaddress is not a valid Bitcoin address',
    ]);
  });

  it('refuses a test network unless ALLOW_TEST_NETWORK says so', () => {
    const testnet = { ...mainnet, network: 'testnet' as const, address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' };
    expect(productionBitcoinProblems(testnet, {})).toEqual([
      expect.stringMatching(/^bitcoin\.network is testnet: .*ALLOW_TEST_NETWORK=true/),
    ]);
    expect(productionBitcoinProblems(testnet, { ALLOW_TEST_NETWORK: true })).toEqual([]);
  });

  it('tells the network of an address', () => {
    expect(addressNetwork('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq')).toBe('mainnet');
    expect(addressNetwork('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx')).toBe('testnet');
    expect(addressNetwork('nonsense')).toBeUndefined();
  });
});
