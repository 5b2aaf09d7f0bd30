/** The stall watchdog's decisions: when a frozen playback with data buffered gets a small seek. */
import { describe, expect, it } from 'vitest';
import { initialStall, MAX_KICKS, type PlaybackSample, type StallState, sampleStall } from './stallWatchdog';

const playing = (currentTime: number, bufferedAhead = 10): PlaybackSample => ({
  paused: false,
  ended: false,
  currentTime,
  bufferedAhead,
});

function run(samples: PlaybackSample[], from: StallState = initialStall()) {
  let state = from;
  const kicks: boolean[] = [];
  for (const p of samples) {
    const r = sampleStall(state, p);
    state = r.state;
    kicks.push(r.kick);
  }
  return { state, kicks };
}

describe('sampleStall', () => {
  it('seeks once playback has stayed frozen for two samples with data buffered ahead (the WebKit wedge)', () => {
    expect(run([playing(0.123), playing(0.123), playing(0.123)]).kicks).toEqual([false, false, true]);
  });

  it('leaves advancing playback alone', () => {
    expect(run([playing(0), playing(1), playing(2), playing(3)]).kicks).toEqual([false, false, false, false]);
  });

  it('leaves a paused or ended element alone, and one waiting for data not yet buffered', () => {
    for (const p of [{ ...playing(5), paused: true }, { ...playing(5), ended: true }, playing(5, 0), playing(5, 0.2)]) {
      expect(run([p, p, p, p]).kicks).toEqual([false, false, false, false]);
    }
  });

  it('gives up after three seeks in one stall, and counts afresh once playback moves again', () => {
    // Each seek moves the frozen element by a hundredth of a second: not progress.
    const frozen = Array.from({ length: 20 }, (_, i) => playing(0.5 + Math.floor(i / 3) * 0.01));
    const stuck = run(frozen);
    expect(stuck.kicks.filter(Boolean)).toHaveLength(MAX_KICKS);
    const moved = run([playing(0.6), playing(0.6), playing(0.6)], stuck.state);
    expect(moved.kicks).toEqual([false, false, true]);
  });
});
