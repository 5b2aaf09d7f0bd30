/** The payment submission rules, without a store: their order, their messages, the approval rule. */
import { describe, expect, it } from 'vitest';
import { exampleSiteConfig } from '../../test/siteConfig.js';
import { normalizeTxHash } from './payment.decider.js';
import { APPROVAL_REQUIRED, checkSubmission, OWN_ACCOUNT_ONLY, payerRefusal } from './payments.service.js';

const site = exampleSiteConfig();
const HASH = 'ab'.repeat(32);

describe('checkSubmission', () => {
  it('accepts the exact plan price with a hash, stored trimmed and lower case', () => {
    expect(
      checkSubmission(site, 'u1', { userId: 'u1', planType: 'monthly', btcAmount: '0.0005', transactionHash: ` ${HASH.toUpperCase()} ` }),
    ).toEqual({
      ok: true,
      value: { planType: 'monthly', amountSats: 50_000, txHash: HASH },
    });
  });

  it('treats a missing or blank hash as none and a missing userId as the payer', () => {
    expect(checkSubmission(site, 'u1', { planType: 'annual', btcAmount: '0.005', transactionHash: '  ' })).toEqual({
      ok: true,
      value: { planType: 'annual', amountSats: 500_000 },
    });
  });

  it('refuses, in this order: a malformed hash, another account, an unreadable amount, another price', () => {
    const bad = { userId: 'u2', planType: 'monthly' as const, btcAmount: 'lots', transactionHash: 'xyz' };
    expect(checkSubmission(site, 'u1', bad)).toEqual({
      ok: false,
      error: { code: 'validation.invalid_input', status: 400, message: 'transactionHash: must be 64 hexadecimal characters' },
    });
    expect(checkSubmission(site, 'u1', { ...bad, transactionHash: null })).toEqual({
      ok: false,
      error: { code: 'payment.not_yours', status: 403, message: OWN_ACCOUNT_ONLY },
    });
    expect(checkSubmission(site, 'u1', { ...bad, transactionHash: null, userId: 'u1' })).toEqual({
      ok: false,
      error: { code: 'validation.invalid_input', status: 400, message: 'btcAmount: must be a BTC amount such as "0.005"' },
    });
    expect(checkSubmission(site, 'u1', { ...bad, transactionHash: null, userId: 'u1', btcAmount: '0.0006' })).toEqual({
      ok: false,
      error: {
        code: 'validation.invalid_input',
        status: 400,
        message: 'btcAmount: must be exactly 0.0005 BTC for the Monthly Premium plan',
      },
    });
  });
});

describe('payerRefusal', () => {
  it('lets approved members pay and refuses pending and rejected ones with the spec message', () => {
    expect(payerRefusal({ approved: 1, status: 'approved' })).toBeUndefined();
    expect(payerRefusal({ approved: 0, status: 'pending' })).toEqual({
      ok: false,
      error: { code: 'payment.approval_required', status: 403, message: APPROVAL_REQUIRED },
    });
    expect(payerRefusal({ approved: 0, status: 'rejected' })?.error.code).toBe('payment.approval_required');
  });
});

describe('normalizeTxHash', () => {
  it('gives the stored form, none for blank, null for anything that is not 64 hex digits', () => {
    expect(normalizeTxHash(HASH.toUpperCase())).toBe(HASH);
    expect(normalizeTxHash(undefined)).toBeUndefined();
    expect(normalizeTxHash('')).toBeUndefined();
    expect(normalizeTxHash(`${HASH}0`)).toBeNull();
    expect(normalizeTxHash('g'.repeat(64))).toBeNull();
  });
});
