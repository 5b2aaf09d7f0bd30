/**
 * Module boundaries of packages/api/src, checked by `pnpm lint` (`pnpm run lint:boundaries`).
 * docs/architecture.md ("Module boundaries") explains the layers and the exceptions.
 *
 *   infrastructure   config/ db/ eventstore/ logging/ shredding/ shared/  any file, from anywhere
 *   kernel           kernel/ (context, module, version)                   any file, from anywhere
 *   routes layer     http/ — its public files (HTTP_PUBLIC below)         from areas and the wiring
 *   domain areas     every other folder: its index.ts is its only face    from other areas and the wiring
 *   wiring           wiring/ (app, modules, server, main) cli/            from nothing but the wiring
 *
 * The kernel and the wiring are folders so that the folder rules see them: a cycle through the
 * kernel (say http/ → kernel/ → metrics/ → http/) is a folder cycle and fails `no-folder-cycle`.
 *
 * Tests and testkits (`*.test.ts`, `*.testkit.ts`) are not cruised: they arrange state and read rows
 * through an area's inner files on purpose.
 */
const SRC = '^packages/api/src/';
const INFRA = ['config', 'db', 'eventstore', 'logging', 'shredding', 'shared'];
/** The routes layer's face: what a domain area's routes use to describe, guard, validate and answer. */
const HTTP_PUBLIC = ['appEnv', 'auth', 'envelope', 'linkOrigin', 'openapi', 'securityHeaders', 'validate'];

const infra = `${SRC}(${INFRA.join('|')})/`;
const kernel = `${SRC}kernel/`;
const wiring = [`${SRC}wiring/`, `${SRC}cli/`];
/** A domain area: any folder that is not infrastructure, the kernel, the routes layer or the wiring. */
const area = `${SRC}(?!(${[...INFRA, 'kernel', 'http', 'wiring', 'cli'].join('|')})/)[^/]+/`;

module.exports = {
  forbidden: [
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import the cruiser cannot resolve is an import no rule above can check: fix its path (or the resolver options below).',
      from: { path: SRC },
      to: { couldNotResolve: true },
    },
    {
      name: 'not-past-index',
      severity: 'error',
      comment: "An area's index.ts is its only face: import another area through it (add the export there), never its inner files.",
      from: { path: `${SRC}([^/]+)` },
      to: { path: area, pathNot: [`${SRC}$1/`, `${SRC}[^/]+/index\\.ts$`] },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment:
        'Areas depend on each other in one direction only: a cycle between folders means two areas are one, or one should receive a port.',
      scope: 'folder',
      from: { path: SRC },
      to: { path: SRC, circular: true },
    },
    {
      name: 'areas-not-to-http-internals',
      severity: 'error',
      comment: `Domain areas use the routes layer's public files only (${HTTP_PUBLIC.join(', ')}); the rest is the app's wiring.`,
      from: { path: [area, kernel, infra] },
      to: { path: `${SRC}http/`, pathNot: `${SRC}http/(${HTTP_PUBLIC.join('|')})\\.ts$` },
    },
    {
      name: 'not-to-wiring',
      severity: 'error',
      comment: 'Only the composition roots (wiring/, cli/) import the wiring.',
      from: { pathNot: wiring },
      to: { path: wiring },
    },
    {
      name: 'http-not-to-areas',
      severity: 'error',
      comment: 'The routes layer knows no domain area: what it needs (the authenticator) is passed in as a port.',
      from: { path: `${SRC}http/` },
      to: { path: area },
    },
    {
      name: 'infra-not-to-areas',
      severity: 'error',
      comment: 'Infrastructure knows no domain area, no routes layer and no wiring.',
      from: { path: infra },
      to: { path: [area, `${SRC}http/`, ...wiring] },
    },
  ],
  options: {
    // Not `includeOnly`: it drops an import that resolves to nothing before any rule sees it. What
    // lies outside the API's sources is a leaf (npm packages, Node's own modules, @members/ui).
    doNotFollow: { path: ['node_modules', '^packages/(ui|web|admin-desktop)/'] },
    exclude: { path: '\\.(test|testkit)\\.ts$' },
    // `import type` counts: a type is part of a face too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'packages/api/tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'], exportsFields: ['exports'], conditionNames: ['import', 'node', 'default'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
