/** Leak tracing's outcome in plain words (LeakTracing.tsx): what the admin reads for each answer. */
import { describe, expect, it } from 'vitest';
import type { LeakExamination } from '../api/types';
import { leakOutcomeInWords } from './LeakTracing';

const base: LeakExamination = {
  id: 'e1',
  status: 'done',
  fileName: 'copy.mp4',
  sizeBytes: 1000,
  sha256: 'a'.repeat(64),
  videoId: null,
  requestedBy: 'admin',
  createdAt: '2026-11-28T07:00:00.000Z',
  finishedAt: '2026-11-28T07:01:00.000Z',
  outcome: null,
  summary: '',
};
const member = { id: 'm1', displayName: 'Ada Lovelace', email: 'ada@example.test' };
const identified = {
  kind: 'identified' as const,
  videoId: 'v1',
  member,
  bitsRead: 48,
  bitsDiffering: 1,
  falseMatchBound: 3.6e-9,
  membersBound: 100_000,
  stretch: { from: 5, to: 53 },
};

describe('leakOutcomeInWords', () => {
  it('names the member with the figures behind it', () => {
    const w = leakOutcomeInWords({ ...base, outcome: identified });
    expect(w.headline).toBe('This copy was streamed by Ada Lovelace (ada@example.test).');
    expect(w.detail).toContain('48 segments read clearly from 5 s to 53 s of video v1, 1 differing');
    expect(w.detail).toContain('at most 3.6e-9 (over 100,000 members)');
  });

  it('a name stored before the text policy (issue 44) cannot reorder or colour the sentence around it', () => {
    const spoof = (displayName: string) =>
      leakOutcomeInWords({ ...base, outcome: { ...identified, member: { ...member, displayName } } }).headline;
    expect(spoof('Admin\u202e\u0007')).toBe('This copy was streamed by Admin (ada@example.test).');
    expect(spoof('hi\u001b[31mred\u001b[0m\r\nX-Injected: yes')).toBe(
      'This copy was streamed by hi [31mred [0m X-Injected: yes (ada@example.test).',
    );
    expect(spoof('\u200b\u202e')).toBe('This copy was streamed by A member (ada@example.test).');
  });

  it('an erased member is never named', () => {
    const w = leakOutcomeInWords({ ...base, outcome: { ...identified, member: { id: 'm1', displayName: null, email: null } } });
    expect(w.headline).toBe('This copy was streamed by a member who has since been erased.');
  });

  it('no match, too short, unreadable, and the states before', () => {
    expect(leakOutcomeInWords({ ...base, outcome: { kind: 'no-match', videoId: null, bitsRead: 0 } }).headline).toBe(
      'No match: no member is named.',
    );
    expect(leakOutcomeInWords({ ...base, outcome: { kind: 'too-short', videoId: 'v1', bitsRead: 8, neededSeconds: 39 } }).headline).toBe(
      'Too short: the copy needs at least 39 s of one marked video.',
    );
    expect(leakOutcomeInWords({ ...base, status: 'failed', outcome: { kind: 'unreadable', reason: 'x' } }).tone).toBe('error');
    expect(leakOutcomeInWords({ ...base, status: 'failed', summary: 'The server stopped' }).detail).toBe('The server stopped');
    expect(leakOutcomeInWords({ ...base, status: 'queued' }).headline).toBe('Waiting to be examined…');
    expect(leakOutcomeInWords({ ...base, status: 'running' }).headline).toBe('Examining the copy…');
  });
});
