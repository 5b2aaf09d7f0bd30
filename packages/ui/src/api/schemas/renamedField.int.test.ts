/**
 * The point of sharing the schemas: a field renamed in one of them is a compile error in the API
 * that answers it and in the web app and the desktop console that read it. The TypeScript compiler
 * checks each package (its own tsconfig, in a child process) with the schema files changed in
 * memory: `title` → `headline` in the Video, `email` → `mail` in the User, and in two requests,
 * `transactionHash` in a payment submission and `durationText` in a tus upload's metadata. Each package must fail
 * in its own source files, and every error must be about the renamed fields (`pnpm typecheck`
 * proves the unchanged code compiles).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../../../../..');
const RENAMES = [
  [
    'packages/ui/src/api/schemas/catalog.ts',
    '    id: z.string(),\n    title: z.string(),',
    '    id: z.string(),\n    headline: z.string(),',
  ],
  ['packages/ui/src/api/schemas/identity.ts', '    id: z.string(),\n    email: z.string(),', '    id: z.string(),\n    mail: z.string(),'],
  // Requests too: what the member submits for a payment, what a tus upload sends as metadata.
  [
    'packages/ui/src/api/schemas/billing.ts',
    "  transactionHash: z.string({ error: 'must be a string' }).nullish(),",
    "  txReference: z.string({ error: 'must be a string' }).nullish(),",
  ],
  ['packages/ui/src/api/schemas/catalog.ts', '  durationText: metadataText(20),', '  durationLabel: metadataText(20),'],
];

async function errorsOf(pkg: string): Promise<{ file: string; message: string }[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(here, 'compileWithEdits.testkit.mjs'), ROOT, pkg, JSON.stringify(RENAMES)],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  return JSON.parse(stdout);
}

describe('a field renamed in a shared schema', () => {
  it.each([
    ['api', 'packages/api/src/'],
    ['web', 'packages/web/src/'],
    ['admin-desktop', 'packages/admin-desktop/src/'],
  ])(
    'breaks the %s build in its own files',
    async (pkg, own) => {
      const errors = await errorsOf(pkg);
      expect(errors.filter((e) => e.file.startsWith(own)).length, JSON.stringify(errors.slice(0, 5), null, 1)).toBeGreaterThan(0);
      expect(
        errors.filter((e) => !/title|email|headline|mail|transactionHash|txReference|durationText|durationLabel/.test(e.message)),
      ).toEqual([]);
    },
    300_000,
  );
});
