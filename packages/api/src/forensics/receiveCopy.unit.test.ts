/** The name a leaked copy was uploaded with is text to show, never a path (receiveCopy.ts). */
import { describe, expect, it } from 'vitest';
import { displayName } from './receiveCopy';

describe('displayName', () => {
  it.each([
    ['../../../etc/passwd', 'passwd'],
    ['C:\\Users\\admin\\leak.mp4', 'leak.mp4'],
    ['/abs/path/copy.mkv', 'copy.mkv'],
    ['name\u0000with\nnul.mp4', 'namewithnul.mp4'],
    ['', 'copy'],
    ['..', '..'],
    ['dir/', 'copy'],
  ])('%j → %j', (raw, shown) => expect(displayName(raw)).toBe(shown));

  it('keeps at most 200 characters', () => expect(displayName('x'.repeat(1000))).toHaveLength(200));
});
