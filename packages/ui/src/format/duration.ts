/** Video durations: seconds ↔ the spec's m:ss text (minutes unpadded, seconds always two digits). */

/**
 * Seconds as m:ss; hours fold into minutes so a long video reads 75:03.
 * @example formatDuration(754) // '12:34'
 */
export function formatDuration(seconds: number | null | undefined): string {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) return '0:00';
  const total = Math.floor(seconds);
  const m = Math.floor(total / 60);
  const s = total % 60;
  return `${m}:${String(s).padStart(2, '0')}`;
}

/**
 * The admin upload form's "mm:ss" text as seconds, or undefined when it is not a duration.
 * @example parseDuration('12:34') // 754
 */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(?:(\d+):)?(\d{1,3}):([0-5]\d)\s*$/.exec(text);
  if (!m) return undefined;
  const [, h, min, sec] = m;
  return Number(h ?? 0) * 3600 + Number(min) * 60 + Number(sec);
}
