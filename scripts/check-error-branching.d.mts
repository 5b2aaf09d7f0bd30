// Types of scripts/check-error-branching.mjs for the TypeScript test that imports it.
export function messageBranches(text: string): { line: number; text: string }[];
