import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../shared/decider.testkit.js';
import { type TranscodeCommand, type TranscodeEvent, transcodeDecider } from './transcode.decider';

const { given } = deciderSpec(transcodeDecider);
const at = '2026-01-01T00:00:00.000Z';
const started = (attempt: number): TranscodeEvent => ({
  type: 'TranscodeStarted',
  data: { videoId: 'v', attempt, renditions: ['360p'], startedAt: at },
});
const rendition = { name: '360p', width: 640, height: 360, bandwidth: 1, codecs: 'avc1.42c01e' };
const complete = (attempt: number): TranscodeCommand => ({
  type: 'CompleteTranscode',
  data: { videoId: 'v', attempt, renditions: [rendition], previews: null, totalBytes: 1, ffmpegSeconds: 1, at },
});
const types = (r: ReturnType<typeof transcodeDecider.decide>) => (r.ok ? r.events.map((e) => e.type) : r.error.code);

/** Decides against a `given(…)`. */
const decide = (command: TranscodeCommand, g: ReturnType<typeof given>) => g.when(command);

describe('transcode decider', () => {
  it('starts attempt 1, then a restarted job starts attempt 2', () => {
    const first = decide({ type: 'StartTranscode', data: { videoId: 'v', renditions: ['360p'], at } }, given([]));
    expect(first.ok && first.events[0]?.data).toMatchObject({ attempt: 1 });
    const again = decide({ type: 'StartTranscode', data: { videoId: 'v', renditions: ['360p'], at } }, given([started(1)]));
    expect(again.ok && again.events[0]?.data).toMatchObject({ attempt: 2 });
  });
  it('a dead attempt can neither progress nor complete the current one', () => {
    const state = given([started(1), started(2)]);
    expect(types(decide(complete(1), state))).toBe('transcode.state_conflict');
    expect(types(decide({ type: 'RecordProgress', data: { videoId: 'v', attempt: 1, percent: 50, at } }, state))).toBe(
      'transcode.state_conflict',
    );
    expect(types(decide(complete(2), state))).toEqual(['TranscodeCompleted']);
  });
  it('progress only moves forward and below 100', () => {
    const state = given([started(1), { type: 'TranscodeProgressed', data: { videoId: 'v', attempt: 1, percent: 50, at } }]);
    const progress = (percent: number) => types(decide({ type: 'RecordProgress', data: { videoId: 'v', attempt: 1, percent, at } }, state));
    expect(progress(25)).toEqual([]);
    expect(progress(100)).toEqual([]);
    expect(progress(75)).toEqual(['TranscodeProgressed']);
  });
  it('only a failed transcode can be retried; a failed one must be retried before it starts again', () => {
    expect(types(decide({ type: 'RetryTranscode', data: { videoId: 'v', actorId: 'a', at } }, given([started(1)])))).toBe(
      'transcode.state_conflict',
    );
    const failed = given([started(1), { type: 'TranscodeFailed', data: { videoId: 'v', attempt: 1, error: 'x', failedAt: at } }]);
    expect(types(decide({ type: 'StartTranscode', data: { videoId: 'v', renditions: [], at } }, failed))).toBe('transcode.state_conflict');
    expect(types(decide({ type: 'RetryTranscode', data: { videoId: 'v', actorId: 'a', at } }, failed))).toEqual(['TranscodeRetried']);
  });
  it('a completed transcode is not started again; ffmpeg messages are kept to their end', () => {
    const done = given([started(1)]);
    const r = decide({ type: 'FailTranscode', data: { videoId: 'v', attempt: 1, error: `${'x'.repeat(5000)}END`, at } }, done);
    const error = r.ok ? ((r.events[0]?.data as { error?: string } | undefined)?.error ?? '') : '';
    expect(error.endsWith('END')).toBe(true);
    expect(error.length).toBe(2000);
    const completed = given([
      started(1),
      { type: 'TranscodeCompleted', data: { ...(complete(1).data as object), completedAt: at } as never },
    ]);
    expect(types(decide({ type: 'StartTranscode', data: { videoId: 'v', renditions: [], at } }, completed))).toBe(
      'transcode.state_conflict',
    );
  });
});
