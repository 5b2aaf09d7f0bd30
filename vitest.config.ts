// Tiers by file name (see STYLE.md): *.unit.test.ts pure, *.int.test.ts real database/HTTP/ffmpeg/SMTP,
// *.e2e.test.ts real browser. `pnpm test` runs all three.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.unit.test.{ts,tsx}', 'packages/*/test/**/*.unit.test.{ts,tsx}', 'scripts/**/*.unit.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'int',
          include: ['packages/*/src/**/*.int.test.ts', 'packages/*/test/**/*.int.test.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['packages/*/test/**/*.e2e.test.ts', 'packages/*/e2e/**/*.e2e.test.ts'],
          environment: 'node',
          pool: 'forks',
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
