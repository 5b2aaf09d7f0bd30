// Types of scripts/check-test-code.mjs for the TypeScript test that imports it.
export const MAX_SLEEP_MS: number;
export function isTestCode(rel: string): boolean;
export function timeAndFailureProblems(text: string): { line: number; rule: 'retry' | 'catch' | 'sleep'; text: string }[];
