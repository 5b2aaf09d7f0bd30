import { describe, expect, it } from 'vitest';
import { deciderSpec, thenError, thenEvents } from '../shared/decider.testkit.js';
import { SHOW_NOT_FOUND, type ShowCommand, type ShowEvent, showDecider, TITLE_REQUIRED } from './show.decider.js';

const { given } = deciderSpec(showDecider);
const S = 'show-1';
const T = '2026-12-03T19:00:00.000Z';
const LADDER = [{ name: '360p', width: 640, height: 360, bandwidth: 900_000 }];

const scheduled = (saveReplay = true): ShowEvent => ({
  type: 'LiveShowScheduled',
  data: {
    showId: S,
    title: 'Friday live',
    description: '',
    accessLevel: 'premium',
    exclusiveTo: null,
    startsAt: '2026-12-03T20:00:00.000Z',
    saveReplay,
    keyHash: 'hash-1',
    scheduledBy: 'admin-1',
    scheduledAt: T,
  },
});
const rotated: ShowEvent = { type: 'LiveShowKeyRotated', data: { showId: S, keyHash: 'hash-2', rotatedBy: 'admin-1', rotatedAt: T } };
const started: ShowEvent = { type: 'LiveShowStarted', data: { showId: S, renditions: LADDER, startedAt: T } };
const ended: ShowEvent = { type: 'LiveShowEnded', data: { showId: S, reason: 'encoder_stopped', endedBy: null, endedAt: T } };

const start = (keyHash: string): ShowCommand => ({ type: 'StartShow', showId: S, keyHash, renditions: LADDER, now: T });
const end: ShowCommand = { type: 'EndShow', showId: S, reason: 'encoder_stopped', endedBy: null, now: T };
const replay = (videoId: string): ShowCommand => ({ type: 'RecordShowReplay', showId: S, videoId, now: T });

describe('a live show', () => {
  it('is scheduled with a trimmed title, never twice, and never without a title', () => {
    const command: ShowCommand = {
      type: 'ScheduleShow',
      showId: S,
      title: '  Friday live ',
      description: ' ',
      accessLevel: 'premium',
      exclusiveTo: null,
      startsAt: '2026-12-03T20:00:00.000Z',
      saveReplay: true,
      keyHash: 'hash-1',
      scheduledBy: 'admin-1',
      now: T,
    };
    thenEvents(given([]).when(command), [scheduled()]);
    thenError(given([]).when({ ...command, title: '  ' }), 'validation.invalid_input', TITLE_REQUIRED);
    thenError(given([scheduled()]).when(command), 'live.state_conflict');
  });

  it('starts only with its current key, once, and not after it ended', () => {
    thenEvents(given([scheduled()]).when(start('hash-1')), [started]);
    thenError(given([scheduled()]).when(start('wrong')), 'live.state_conflict');
    thenError(given([scheduled(), rotated]).when(start('hash-1')), 'live.state_conflict');
    thenEvents(given([scheduled(), rotated]).when(start('hash-2')), [{ ...started }]);
    thenError(given([scheduled(), started]).when(start('hash-1')), 'live.state_conflict');
    thenError(given([scheduled(), started, ended]).when(start('hash-1')), 'live.state_conflict');
    thenError(given([]).when(start('hash-1')), 'live.show_not_found', SHOW_NOT_FOUND);
  });

  it('ends once (a second end changes nothing) and keeps no key rotation after the end', () => {
    thenEvents(given([scheduled(), started]).when(end), [ended]);
    thenEvents(given([scheduled(), started, ended]).when(end), []);
    thenError(
      given([scheduled(), started, ended]).when({ type: 'RotateShowKey', showId: S, keyHash: 'h', rotatedBy: 'a', now: T }),
      'live.state_conflict',
    );
  });

  it('records its replay once, only after the end and only when the replay is kept', () => {
    const recorded: ShowEvent = { type: 'LiveShowReplayRecorded', data: { showId: S, videoId: 'video-1', recordedAt: T } };
    thenEvents(given([scheduled(), started, ended]).when(replay('video-1')), [recorded]);
    thenEvents(given([scheduled(), started, ended, recorded]).when(replay('video-1')), []);
    thenError(given([scheduled(), started, ended, recorded]).when(replay('video-2')), 'live.state_conflict');
    thenError(given([scheduled(), started]).when(replay('video-1')), 'live.state_conflict');
    thenError(given([scheduled(false), started, ended]).when(replay('video-1')), 'live.state_conflict');
  });

  it('never holds the key itself, only its hash', () => {
    expect(JSON.stringify(scheduled())).not.toMatch(/streamKey/);
  });
});
