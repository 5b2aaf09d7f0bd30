/** Keys the player swallows while open (spec §9): print screen, developer tools, save, select all, F12. */
export function isBlockedShortcut(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>): boolean {
  const key = e.key.toLowerCase();
  const mod = e.ctrlKey || e.metaKey;
  if (key === 'printscreen' || key === 'f12') return true;
  if (mod && (key === 's' || key === 'a' || key === 'p' || key === 'u')) return true;
  if (mod && e.shiftKey && (key === 'i' || key === 'j' || key === 'c')) return true;
  if (e.metaKey && e.altKey && (key === 'i' || key === 'j' || key === 'c')) return true;
  return false;
}

/** A random spot for the watermark, kept inside the frame (percentages of width and height). */
export function randomWatermarkPosition(random: () => number = Math.random): { top: number; left: number } {
  return { top: 5 + Math.round(random() * 80), left: 5 + Math.round(random() * 60) };
}

export const WATERMARK_MOVE_MS = 4000;
export const MIN_VIEW_SECONDS = 5;
