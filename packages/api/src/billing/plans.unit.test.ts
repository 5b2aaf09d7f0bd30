import { describe, expect, it } from 'vitest';
import { exampleSiteConfig } from '../../test/siteConfig.js';
import { addMonths, allPlans, periodEnd } from './plans.js';

describe('plans', () => {
  it('match section 9 by default', () => {
    const [monthly, annual] = allPlans(exampleSiteConfig());
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
