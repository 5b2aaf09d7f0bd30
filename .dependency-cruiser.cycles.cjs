/**
 * No import cycle between the modules of any package (`pnpm run lint:circles`): the API, the shared
 * UI, the member site and the admin console, their tests included. `import type` counts, as in the
 * boundaries' config (.dependency-cruiser.cjs, the API's layers). One dependency-cruiser run for the
 * four packages: it replaced four runs of madge, which parsed the same files again (21 CPU-s of
 * `pnpm lint` against about 7).
 */
const SRC = '^packages/(api|ui|web|admin-desktop)/(src|test)/';

module.exports = {
  forbidden: [
    {
      name: 'no-module-cycle',
      severity: 'error',
      comment: 'Modules import each other in one direction only: move what both need into a third module, or pass it in.',
      from: { path: SRC },
      to: { path: SRC, circular: true },
    },
  ],
  options: {
    includeOnly: SRC,
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'] },
  },
};
