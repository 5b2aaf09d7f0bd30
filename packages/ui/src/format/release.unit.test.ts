import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isoToLocalInput, isScheduled, localInputToIso } from './release';

const moduleUrl = new URL('./release.ts', import.meta.url).href;

/** Runs the conversions in a Node of its own whose time zone is `tz` (this test runner's is whatever the machine's is). */
function inZone(tz: string, expression: string): unknown {
  const script = `import(${JSON.stringify(moduleUrl)}).then((m) => process.stdout.write(JSON.stringify(${expression})))`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, TZ: tz },
    cwd: fileURLToPath(new URL('.', import.meta.url)),
  });
  return JSON.parse(String(out));
}

describe('a release time between the datetime-local input and publishAt', () => {
  it('reads the input in the admin’s time zone, with that day’s offset (winter and summer time)', () => {
    expect(
      inZone(
        'Europe/Paris',
        "[m.localInputToIso('2026-12-03T10:00'), m.localInputToIso('2026-07-01T10:30'), m.isoToLocalInput('2026-12-03T09:00:00Z')]",
      ),
    ).toEqual(['2026-12-03T10:00:00+01:00', '2026-07-01T10:30:00+02:00', '2026-12-03T10:00']);
    expect(inZone('America/New_York', "[m.localInputToIso('2026-12-03T10:00'), m.scheduledText('2026-12-03T15:00:00Z')]")).toEqual([
      '2026-12-03T10:00:00-05:00',
      'Scheduled: 3 December 2026, 10:00',
    ]);
    expect(inZone('Asia/Kolkata', "m.localInputToIso('2026-12-03T10:00')")).toBe('2026-12-03T10:00:00+05:30');
    expect(inZone('UTC', "m.localInputToIso('2026-12-03T10:00:15')")).toBe('2026-12-03T10:00:15+00:00');
  });

  it('round-trips in this machine’s zone: the ISO names the same instant the input showed', () => {
    const iso = localInputToIso('2026-12-03T10:00');
    expect(iso).toMatch(/^2026-12-03T10:00:00[+-]\d{2}:\d{2}$/);
    expect(new Date(iso as string).getTime()).toBe(new Date(2026, 11, 3, 10, 0).getTime());
    expect(isoToLocalInput(iso)).toBe('2026-12-03T10:00');
  });

  it('a cleared input is no schedule; what the input never produces is refused', () => {
    expect(localInputToIso('')).toBeNull();
    expect(localInputToIso('  ')).toBeNull();
    expect(localInputToIso('2026-02-31T10:00')).toBeNull();
    expect(localInputToIso('3 December 2026')).toBeNull();
    expect(isoToLocalInput(null)).toBe('');
    expect(isoToLocalInput('soon')).toBe('');
  });

  it('only a future publishAt is scheduled', () => {
    const now = new Date('2026-11-30T12:00:00Z');
    expect(isScheduled('2026-12-01T00:00:00Z', now)).toBe(true);
    expect(isScheduled('2026-11-30T11:59:59Z', now)).toBe(false);
    expect(isScheduled(null, now)).toBe(false);
    expect(isScheduled('never', now)).toBe(false);
  });
});
