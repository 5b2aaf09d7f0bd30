// Types of scripts/test-repeat.mjs for its unit test.
export function parseArgs(argv: string[]): { files: string[]; times: number; load: number; build: boolean; workers: number };
export interface TestRate {
  name: string;
  passed: number;
  failed: number;
  errors: string[];
}
export function passRates(reports: unknown[], base?: string): TestRate[];
