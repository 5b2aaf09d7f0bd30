// Types of scripts/freePort.mjs for the TypeScript tests that import it.
export function freePort(): Promise<number>;
