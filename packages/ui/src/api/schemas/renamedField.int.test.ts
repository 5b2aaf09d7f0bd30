/**
 * The point of sharing the schemas: a field renamed in one of them is a compile error in the API
 * that answers it and in the web app and the desktop console that read it. The TypeScript compiler
 * checks each package's build (its sources under src/, with its own tsconfig; one child process for
 * the three, which parses the files they share once) with the schema files changed in memory: `title` → `headline` in the Video, `email` → `mail` in the User, and in two requests,
 * `transactionHash` in a payment submission and `durationText` in a tus upload's metadata. Each package must fail
 * in its own source files, and every error must be about the renamed fields (`pnpm typecheck`
 * proves the unchanged code compiles).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

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

const PACKAGES = [
  ['api', 'packages/api/src/'],
  ['web', 'packages/web/src/'],
  ['admin-desktop', 'packages/admin-desktop/src/'],
] as const;

type Errors = Record<string, { file: string; message: string }[]>;

describe('a field renamed in a shared schema', () => {
  let errors: Errors;
  beforeAll(async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(here, 'compileWithEdits.testkit.mjs'), ROOT, JSON.stringify(RENAMES), ...PACKAGES.map(([pkg]) => pkg)],
      { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
    );
    errors = JSON.parse(stdout);
  }, 300_000);

  it.each(PACKAGES)('breaks the %s build in its own files', (pkg, own) => {
    const found = errors[pkg] ?? [];
    expect(found.filter((e) => e.file.startsWith(own)).length, JSON.stringify(found.slice(0, 5), null, 1)).toBeGreaterThan(0);
    expect(
      found.filter((e) => !/title|email|headline|mail|transactionHash|txReference|durationText|durationLabel/.test(e.message)),
    ).toEqual([]);
  });
});
