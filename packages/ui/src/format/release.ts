/**
 * A scheduled release's time between the admin's `<input type="datetime-local">` (a wall-clock time
 * in the admin's own time zone, no offset) and the API's `publishAt` (ISO 8601 with an offset), and
 * the admin list's "Scheduled: {date}". The web /admin and the desktop console share them.
 */

const LOCAL_INPUT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

const pad = (n: number, width = 2) => String(Math.trunc(Math.abs(n))).padStart(width, '0');

/**
 * The input's value read in this machine's time zone, as ISO 8601 with that zone's offset at that
 * moment (summer or winter time); '' (a cleared input) is null, and so is a value the input never
 * produces (a malformed or impossible date such as 31 February).
 * @example localInputToIso('2026-12-03T10:00') // '2026-12-03T10:00:00+01:00' in Paris
 */
export function localInputToIso(value: string): string | null {
  const m = LOCAL_INPUT.exec(value.trim());
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map((x) => Number(x ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const at = new Date(year, month - 1, day, hour, minute, second);
  // The Date constructor rolls an impossible day over (31 February → 3 March): refuse it.
  if (at.getFullYear() !== year || at.getMonth() !== month - 1 || at.getDate() !== day || at.getHours() !== hour) return null;
  const offset = -at.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}${sign}${pad(offset / 60)}:${pad(offset % 60)}`;
}

/**
 * The other way: an ISO date-time shown in a datetime-local input, in this machine's time zone;
 * '' for null or an unreadable value (the input then shows empty).
 * @example isoToLocalInput('2026-12-03T09:00:00Z') // '2026-12-03T10:00' in Paris
 */
export function isoToLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  return `${pad(at.getFullYear(), 4)}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/** A future `publishAt`: the video is scheduled, not yet released to anyone but admins. */
export function isScheduled(publishAt: string | null | undefined, now: Date = new Date()): boolean {
  if (!publishAt) return false;
  const at = new Date(publishAt).getTime();
  return Number.isFinite(at) && at > now.getTime();
}

/**
 * The admin list's marker, in the admin's time zone and with the time, since the admin chose one.
 * @example scheduledText('2026-12-03T09:00:00Z') // 'Scheduled: 3 December 2026, 10:00' in Paris
 */
export function scheduledText(publishAt: string): string {
  const at = new Date(publishAt);
  const date = at.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric' });
  return `Scheduled: ${date}, ${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/** The longest a catalog waits before asking again for a release it is counting down to (timers drift; the tab may sleep). */
export const RELEASE_RECHECK_MAX_MS = 15 * 60_000;

/**
 * How long until the first of these videos comes to the viewer's plan (its `availableAt`), a second
 * after it so the server agrees, capped at RELEASE_RECHECK_MAX_MS; false when none is waiting. The
 * catalog's queries refetch then, so "Coming to your plan on {date}" turns playable without a reload.
 * @example msUntilNextRelease([{ availableAt: '2026-12-03T09:00:00Z' }], Date.parse('2026-12-03T08:59:00Z')) // 61000
 */
export function msUntilNextRelease(
  videos: readonly { availableAt?: string | null }[] | undefined,
  now: number = Date.now(),
): number | false {
  let next = Number.POSITIVE_INFINITY;
  for (const v of videos ?? []) {
    const at = v.availableAt ? Date.parse(v.availableAt) : Number.NaN;
    if (at > now && at < next) next = at;
  }
  return Number.isFinite(next) ? Math.min(next - now + 1000, RELEASE_RECHECK_MAX_MS) : false;
}
