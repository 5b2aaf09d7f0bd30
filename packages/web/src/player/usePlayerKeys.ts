/**
 * The player's keyboard: the protection's shortcuts (save, print, devtools...) swallowed while the
 * overlay is open, then the player's keys on the dialog (Space/K, arrows, J/L, Home/End,
 * playerKeys.ts), except inside the captions menu, whose arrows are its own.
 */
import { type RefObject, useEffect } from 'react';
import { keyTargetOf, playerKeyAction } from './playerKeys';
import { togglePlayback } from './playRequest';
import { isBlockedShortcut } from './protection';

export function usePlayerKeys(
  dialogRef: RefObject<HTMLDialogElement | null>,
  videoRef: RefObject<HTMLVideoElement | null>,
  durationRef: RefObject<number>,
  onSeeked: (time: number) => void,
): void {
  useEffect(() => {
    function blockKeys(e: KeyboardEvent) {
      if (isBlockedShortcut(e)) {
        e.preventDefault();
        e.stopPropagation();
      }
    }
    window.addEventListener('keydown', blockKeys, true);
    window.addEventListener('keyup', blockKeys, true);
    return () => {
      window.removeEventListener('keydown', blockKeys, true);
      window.removeEventListener('keyup', blockKeys, true);
    };
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: refs and a state setter, bound once
  useEffect(() => {
    const d = dialogRef.current;
    if (!d) return;
    function onKey(e: KeyboardEvent) {
      if (e.defaultPrevented) return;
      // Inside the captions menu the arrows, Home, End and Escape are the menu's.
      if ((e.target as Element | null)?.closest?.('[role=menu]')) return;
      const el = videoRef.current;
      const action = playerKeyAction(e, keyTargetOf(e.target));
      if (!el || !action) return;
      e.preventDefault();
      if (action.kind === 'toggle') {
        togglePlayback(el);
        return;
      }
      const end = Number.isFinite(el.duration) ? el.duration : durationRef.current;
      const to = action.kind === 'seekBy' ? el.currentTime + action.seconds : action.where === 'start' ? 0 : end;
      el.currentTime = Math.min(Math.max(0, to), end || 0);
      onSeeked(el.currentTime);
    }
    d.addEventListener('keydown', onKey);
    return () => d.removeEventListener('keydown', onKey);
  }, []);
}
