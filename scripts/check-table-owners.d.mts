// Types of scripts/check-table-owners.mjs for the TypeScript test that imports it.
export const KNOWN: string[];
export function parseOwners(text: string): Record<string, string>;
export function moduleOf(file: string): string;
export function tableFindings(
  files: { file: string; text: string }[],
  owners: Record<string, string>,
): {
  reads: { module: string; file: string; table: string; owner: string; line: number }[];
  unlisted: { file: string; table: string }[];
};
