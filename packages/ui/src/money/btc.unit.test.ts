/** The one money module: satoshis ↔ BTC strings for the API, BTC with its unit for the screens. */
import { describe, expect, it } from 'vitest';
import { explorerTxUrl, formatBtc, parseBtc, satsToBtc, truncateHash } from './btc';

describe('money', () => {
  it('parses and formats BTC exactly', () => {
    expect(parseBtc('0.0005')).toBe(50000);
    expect(parseBtc('0.005')).toBe(500000);
    expect(parseBtc('0.00500000')).toBe(500000);
    expect(parseBtc('1')).toBe(100_000_000);
    expect(parseBtc('21000000.00000001')).toBe(2_100_000_000_000_001);
    for (const bad of ['', '.5', '0.000000001', '-1', '1e-3', ' 0.5', '0,5', '0.5 ']) expect(parseBtc(bad)).toBeUndefined();
    expect(satsToBtc(50000)).toBe('0.0005');
    expect(satsToBtc(500000)).toBe('0.005');
    expect(satsToBtc(0)).toBe('0');
    expect(satsToBtc(123_456_789)).toBe('1.23456789');
    expect(satsToBtc(100_000_000)).toBe('1');
    expect(satsToBtc(-50_000)).toBe('-0.0005');
  });
});

describe('BTC formatting', () => {
  it('trims trailing zeros and adds the unit', () => {
    expect(formatBtc('0.00050000')).toBe('0.0005 BTC');
    expect(formatBtc('0.005')).toBe('0.005 BTC');
    expect(formatBtc('1.00000000')).toBe('1 BTC');
    expect(formatBtc('0')).toBe('0 BTC');
    expect(formatBtc(0.0005)).toBe('0.0005 BTC');
    expect(formatBtc(undefined)).toBe('0 BTC');
  });
});

describe('truncateHash', () => {
  const hash = 'f'.repeat(20) + '0'.repeat(44);
  it('keeps the first 16 characters', () => {
    expect(truncateHash(hash)).toBe(`${'f'.repeat(16)}...`);
    expect(truncateHash(hash).replace('...', '')).toHaveLength(16);
  });
  it('leaves short hashes alone', () => expect(truncateHash('abc')).toBe('abc'));
  it('links to the explorer', () => expect(explorerTxUrl('ab12')).toBe('https://mempool.space/tx/ab12'));
});
