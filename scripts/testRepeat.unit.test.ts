/** The flake finder's arguments and its pass-rate table (scripts/test-repeat.mjs). */
import { describe, expect, it } from 'vitest';
import { parseArgs, passRates } from './test-repeat.mjs';

describe('test:repeat', () => {
  it('takes files, --times, --load and --no-build; refuses the rest', () => {
    expect(parseArgs(['a.int.test.ts', '--times', '3', 'b.e2e.test.ts', '--load', '2', '--no-build'])).toEqual({
      files: ['a.int.test.ts', 'b.e2e.test.ts'],
      times: 3,
      load: 2,
      build: false,
      workers: 2,
    });
    expect(parseArgs(['a.int.test.ts'])).toEqual({ files: ['a.int.test.ts'], times: 5, load: 0, build: true, workers: 2 });
    expect(() => parseArgs([])).toThrow(/at least one test file/);
    expect(() => parseArgs(['a', '--times', 'x'])).toThrow(/whole number/);
    expect(() => parseArgs(['a', '--retry'])).toThrow(/unknown option --retry/);
  });

  it('counts each test over the rounds, failures first with their first line, and a file that failed outside its tests', () => {
    const round = (chatOk: boolean, importError = false) => ({
      testResults: [
        {
          name: '/r/chat.int.test.ts',
          status: chatOk ? 'passed' : 'failed',
          assertionResults: [
            {
              fullName: 'chat delivers',
              title: 'delivers',
              status: chatOk ? 'passed' : 'failed',
              failureMessages: ['AssertionError: late\n  at x'],
            },
            { fullName: 'chat refuses', title: 'refuses', status: 'passed' },
            { fullName: 'chat skipped', title: 'skipped', status: 'skipped' },
          ],
        },
        { name: '/r/main.int.test.ts', status: importError ? 'failed' : 'passed', message: 'Error: boom\nstack', assertionResults: [] },
      ],
    });
    const rates = passRates([round(true), round(false), round(true, true)], '/r');
    expect(rates).toEqual([
      { name: 'chat.int.test.ts > chat delivers', passed: 2, failed: 1, errors: ['AssertionError: late'] },
      { name: 'main.int.test.ts (outside its tests)', passed: 0, failed: 1, errors: ['Error: boom'] },
      { name: 'chat.int.test.ts > chat refuses', passed: 3, failed: 0, errors: [] },
    ]);
  });
});
