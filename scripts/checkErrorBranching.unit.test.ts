/** The lint rule of scripts/check-error-branching.mjs: branching on message text is found, branching on codes is not. */
import { expect, it } from 'vitest';
import { messageBranches } from './check-error-branching.mjs';

it('finds comparisons with and searches in message text, wherever the text comes from', () => {
  const flagged = [
    "const target = message === SECOND_FACTOR_ENROLMENT_REQUIRED ? '/two-factor' : '/blocked';",
    'if (!ran.ok) return !codeOk.ok && codeOk.error.message === CODE_ALREADY_USED ? a : b;',
    "if (err.message !== 'Video not found') retry();",
    "if (body.error === 'Your session has expired. Please log in again.') logout();",
    "if ('Payment not found' === e.message) show();",
    "if (e.message.includes('expired')) refresh();",
    'if (answer.error?.startsWith(`Too many`)) wait();',
    'if (/suspended/i.test(err.message)) block();',
  ];
  expect(flagged.map((line) => messageBranches(line).length)).toEqual(flagged.map(() => 1));
});

it('lets code branches, type tests, comments and explained exceptions through', () => {
  const clean = [
    "const target = code === 'auth.second_factor_enrolment_required' ? '/two-factor' : '/blocked';",
    "if (err instanceof ApiError && err.code === 'video.not_found') show();",
    "return typeof body.error === 'string' && isErrorCode(body.code);",
    "// a comment may say message === 'x'",
    "return code === 'ECONNRESET' && err.message === 'aborted'; // message-text: Node names a client abort only so",
    'setError(result.error || "Login failed");',
  ];
  expect(clean.flatMap((line) => messageBranches(line))).toEqual([]);
});
