/** The player's keys: play/pause and seeking, native keys kept on controls, blocked shortcuts never taken over. */
import { describe, expect, it } from 'vitest';
import { playerKeyAction } from './playerKeys';
import { isBlockedShortcut } from './protection';

const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});

describe('playerKeyAction', () => {
  it('Space and K play/pause, except where they press a button or open the quality menu', () => {
    for (const target of ['seek', 'volume', 'other'] as const) {
      expect(playerKeyAction(key(' '), target)).toEqual({ kind: 'toggle' });
      expect(playerKeyAction(key('K'), target)).toEqual({ kind: 'toggle' });
    }
    expect(playerKeyAction(key(' '), 'button')).toBeNull();
    expect(playerKeyAction(key(' '), 'select')).toBeNull();
    expect(playerKeyAction(key('k'), 'button')).toEqual({ kind: 'toggle' });
    expect(playerKeyAction(key('k'), 'select')).toBeNull();
  });

  it('arrows seek 5 s, J/L 10 s, Home/End to the ends, on the seek bar and the picture', () => {
    for (const target of ['seek', 'other', 'button'] as const) {
      expect(playerKeyAction(key('ArrowRight'), target)).toEqual({ kind: 'seekBy', seconds: 5 });
      expect(playerKeyAction(key('ArrowLeft'), target)).toEqual({ kind: 'seekBy', seconds: -5 });
    }
    expect(playerKeyAction(key('l'), 'other')).toEqual({ kind: 'seekBy', seconds: 10 });
    expect(playerKeyAction(key('j'), 'other')).toEqual({ kind: 'seekBy', seconds: -10 });
    expect(playerKeyAction(key('Home'), 'seek')).toEqual({ kind: 'seekTo', where: 'start' });
    expect(playerKeyAction(key('End'), 'seek')).toEqual({ kind: 'seekTo', where: 'end' });
  });

  it('leaves arrows to the volume slider and the quality menu', () => {
    expect(playerKeyAction(key('ArrowRight'), 'volume')).toBeNull();
    expect(playerKeyAction(key('ArrowLeft'), 'select')).toBeNull();
    expect(playerKeyAction(key('Enter'), 'other')).toBeNull();
  });

  it('never takes a blocked shortcut or any key with Ctrl, ⌘ or Alt', () => {
    for (const e of [
      key('s', { ctrlKey: true }),
      key('a', { metaKey: true }),
      key('i', { ctrlKey: true, shiftKey: true }),
      key('k', { altKey: true }),
    ]) {
      expect(playerKeyAction(e, 'other')).toBeNull();
    }
    expect(isBlockedShortcut(key('F12'))).toBe(true);
    expect(playerKeyAction(key('F12'), 'other')).toBeNull();
    // And the player's own keys are not among the blocked ones.
    for (const k of [' ', 'k', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'j', 'l']) expect(isBlockedShortcut(key(k))).toBe(false);
  });
});
