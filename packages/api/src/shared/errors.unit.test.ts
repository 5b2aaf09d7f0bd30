/**
 * The error vocabulary (shared/errors.ts over ui/api/schemas/errorCodes.ts): stable names, one
 * status each, and no code in the catalogue that the server never answers (the compiler already
 * refuses a code the catalogue lacks: `ErrorCode` is its keys).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ACCESS_MESSAGES } from '@members/ui/access';
import { ERROR_CODE_LIST, ERROR_CODES } from '@members/ui/api/schemas';
import { describe, expect, it } from 'vitest';
import { appError, statusOf } from './errors.js';

const SRC = path.resolve(import.meta.dirname, '..');

function* productionFiles(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* productionFiles(p);
    else if (/\.ts$/.test(e.name) && !/\.(unit|int|e2e)\.test\.ts$|\.testkit\.ts$/.test(e.name)) yield p;
  }
}

describe('the error catalogue', () => {
  it('names each code area.reason in lower snake case (or a bare reason), with a 4xx or 5xx status and a meaning', () => {
    for (const code of ERROR_CODE_LIST) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*(\.[a-z]+(_[a-z]+)*)?$/);
      expect(ERROR_CODES[code].status).toBeGreaterThanOrEqual(400);
      expect(ERROR_CODES[code].status).toBeLessThan(600);
      expect(ERROR_CODES[code].meaning.length).toBeGreaterThan(10);
    }
  });

  it('holds no code the server never answers', () => {
    const source = [...productionFiles(SRC)].map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    // A video access refusal is `access.<the decision's reason>` (streaming/viewing.service.ts).
    const access = new Set(Object.keys(ACCESS_MESSAGES).map((reason) => `access.${reason}`));
    const unused = ERROR_CODE_LIST.filter((code) => !access.has(code) && !source.includes(`'${code}'`));
    expect(unused).toEqual([]);
  });

  it("gives an AppError its code's status, unless a protocol library's refusal keeps its own", () => {
    expect(appError('video.not_found', 'Video not found')).toEqual({ code: 'video.not_found', status: 404, message: 'Video not found' });
    expect(statusOf('rate_limited')).toBe(429);
    expect(appError('upload.refused', 'Gone', { status: 410 }).status).toBe(410);
  });
});
