import { expect, it } from 'vitest';
import { inChunks } from './inChunks';

it('splits distinct values into runs of at most the size, in first-seen order', () => {
  expect(inChunks([])).toEqual([]);
  expect(inChunks(['a', 'b', 'a', 'c', 'd'], 2)).toEqual([
    ['a', 'b'],
    ['c', 'd'],
  ]);
  const many = Array.from({ length: 2500 }, (_, i) => `id-${i}`);
  expect(inChunks(many).map((c) => c.length)).toEqual([1000, 1000, 500]);
});
