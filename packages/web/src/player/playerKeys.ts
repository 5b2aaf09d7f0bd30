/**
 * The player's keyboard: Space or K plays/pauses, ←/→ seek 5 s, J/L 10 s, Home/End go to the start
 * or the end. Keys keep their native meaning where the focused control has one (Space/Enter on a
 * button or the quality menu, arrows on the volume slider and the menu), and any key with Ctrl, ⌘
 * or Alt is left alone: those are the shortcuts the player blocks (protection.ts) or the browser's.
 */

export type KeyTarget = 'button' | 'select' | 'volume' | 'seek' | 'other';
export type PlayerKeyAction = { kind: 'toggle' } | { kind: 'seekBy'; seconds: number } | { kind: 'seekTo'; where: 'start' | 'end' };

export const SEEK_STEP_SECONDS = 5;
export const SEEK_JUMP_SECONDS = 10;

export function playerKeyAction(
  e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey'>,
  target: KeyTarget,
): PlayerKeyAction | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  // Space presses a focused button itself; K is the player's everywhere but in the menu (type-ahead).
  if (key === ' ') return target === 'button' || target === 'select' ? null : { kind: 'toggle' };
  if (key === 'k') return target === 'select' ? null : { kind: 'toggle' };
  if (target === 'volume' || target === 'select') return null;
  switch (key) {
    case 'ArrowLeft':
      return { kind: 'seekBy', seconds: -SEEK_STEP_SECONDS };
    case 'ArrowRight':
      return { kind: 'seekBy', seconds: SEEK_STEP_SECONDS };
    case 'j':
      return { kind: 'seekBy', seconds: -SEEK_JUMP_SECONDS };
    case 'l':
      return { kind: 'seekBy', seconds: SEEK_JUMP_SECONDS };
    case 'Home':
      return { kind: 'seekTo', where: 'start' };
    case 'End':
      return { kind: 'seekTo', where: 'end' };
    default:
      return null;
  }
}

/** What kind of control a key event came from, by the element it was sent to. */
export function keyTargetOf(el: EventTarget | null): KeyTarget {
  if (!(el instanceof HTMLElement)) return 'other';
  if (el instanceof HTMLButtonElement || el instanceof HTMLAnchorElement) return 'button';
  if (el instanceof HTMLSelectElement) return 'select';
  if (el instanceof HTMLInputElement && el.type === 'range') return el.dataset.control === 'seek' ? 'seek' : 'volume';
  return 'other';
}
