// Types of scripts/check-route-contract.mjs for the TypeScript test that imports it.
export const ACCESS_CHECKS: string[];
export function handParses(text: string): { line: number; text: string }[];
export function handlerAccessChecks(fileName: string, text: string): { line: number; route: string }[];
