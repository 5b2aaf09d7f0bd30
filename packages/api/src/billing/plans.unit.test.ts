import { describe, expect, it } from 'vitest';
import { loadSiteConfig } from '../config/site.js';
import { formatBtc, parseBtc } from '../shared/money.js';
import { addMonths, allPlans, periodEnd } from './plans.js';

describe('money', () => {
  it('parses and formats BTC exactly', () => {
    expect(parseBtc('0.0005')).toBe(50000);
    expect(parseBtc('0.005')).toBe(500000);
    expect(parseBtc('0.00500000')).toBe(500000);
    expect(parseBtc('1')).toBe(100_000_000);
    expect(parseBtc('21000000.00000001')).toBe(2_100_000_000_000_001);
    for (const bad of ['', '.5', '0.000000001', '-1', '1e-3', ' 0.5', '0,5', '0.5 ']) expect(parseBtc(bad)).toBeUndefined();
    expect(formatBtc(50000)).toBe('0.0005');
    expect(formatBtc(500000)).toBe('0.005');
    expect(formatBtc(0)).toBe('0');
    expect(formatBtc(123_456_789)).toBe('1.23456789');
    expect(formatBtc(100_000_000)).toBe('1');
  });
});

describe('plans', () => {
  it('match section 9 by default', () => {
    const [monthly, annual] = allPlans(loadSiteConfig().config);
    expect(monthly).toMatchObject({ id: 'monthly', btcAmount: '0.0005', amountSats: 50000, usdPrice: 29.99, mostPopular: false });
    expect(annual).toMatchObject({
      id: 'annual',
      btcAmount: '0.005',
      amountSats: 500000,
      usdPrice: 299.99,
      formerBtcAmount: '0.006',
      formerAmountSats: 600000,
      formerUsdPrice: 359.88,
      mostPopular: true,
    });
    expect(annual?.features).toContain('4K ultra HD access');
  });

  it('periods are calendar months and years', () => {
    expect(addMonths('2026-01-31T10:00:00.000Z', 1)).toBe('2026-02-28T10:00:00.000Z');
    expect(addMonths('2028-01-31T10:00:00.000Z', 1)).toBe('2028-02-29T10:00:00.000Z');
    expect(addMonths('2026-12-15T00:00:00.000Z', 1)).toBe('2027-01-15T00:00:00.000Z');
    expect(periodEnd('2028-02-29T00:00:00.000Z', 'annual')).toBe('2029-02-28T00:00:00.000Z');
    expect(periodEnd('2026-03-10T08:00:00.000Z', 'monthly')).toBe('2026-04-10T08:00:00.000Z');
  });
});
