/** /blocked names the refusal's reason: the spec's region sentence only for a region block. */
import { ACCESS_MESSAGES } from '@members/ui/access';
import { describe, expect, it } from 'vitest';
import { blockedReason, NOT_ALLOWED_SENTENCE, REGION_SENTENCE, UNKNOWN_SENTENCE } from './blockedReason';

describe('blockedReason', () => {
  it.each([
    ['access.region_blocked', 'region', REGION_SENTENCE],
    ['access.suspended', 'suspended', ACCESS_MESSAGES.suspended],
    ['auth.login_suspended', 'suspended', ACCESS_MESSAGES.suspended],
    ['access.not_approved', 'not_approved', ACCESS_MESSAGES.not_approved],
    ['auth.admin_only', 'not_allowed', NOT_ALLOWED_SENTENCE],
    ['auth.permission_required', 'not_allowed', NOT_ALLOWED_SENTENCE],
    ['auth.not_approved', 'not_allowed', NOT_ALLOWED_SENTENCE],
    ['request.csrf', 'unknown', UNKNOWN_SENTENCE],
    ['', 'unknown', UNKNOWN_SENTENCE],
    [null, 'unknown', UNKNOWN_SENTENCE],
  ])('%s → %s', (code, kind, sentence) => {
    expect(blockedReason(code)).toEqual({ kind, sentence });
  });

  it('keeps the spec’s region words', () => {
    expect(REGION_SENTENCE).toBe(`${ACCESS_MESSAGES.region_blocked}.`);
    expect(UNKNOWN_SENTENCE).not.toContain('region');
  });
});
