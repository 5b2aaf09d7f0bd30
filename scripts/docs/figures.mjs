// Figures that change with the code, generated into the docs between marker comments
// (`<!-- generated:NAME -->` … `<!-- /generated:NAME -->`): the environment table from the server's
// zod schema and env.docs.ts, the CLI commands from the CLI's own table, the Prometheus series from
// the metrics registry, the latest benchmark table from bench/RESULTS.md. Imports TypeScript: run
// under tsx (`node scripts/docs-figures.mjs` re-runs itself through it).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const BLOCKS = [
  { file: 'docs/configuration.md', name: 'env' },
  { file: 'docs/operations.md', name: 'cli' },
  { file: 'docs/operations.md', name: 'metrics' },
  { file: 'docs/benchmarks.md', name: 'bench' },
  { file: 'docs/api.md', name: 'openapi' },
  { file: 'docs/api.md', name: 'openapi-size' },
  { file: 'docs/api.md', name: 'error-codes' },
  { file: 'docs/security.md', name: 'matrix-summary' },
  { file: 'docs/security.md', name: 'matrix' },
  { file: 'docs/security.md', name: 'matrix-log' },
];

const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const table = (head, rows) =>
  [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');

/**
 * Replaces the body between a block's markers (on one line: inline, e.g. inside a table cell);
 * throws when the markers are missing.
 */
export function replaceBlock(text, name, body) {
  const open = `<!-- generated:${name} -->`;
  const close = `<!-- /generated:${name} -->`;
  const a = text.indexOf(open);
  const b = text.indexOf(close);
  if (a < 0 || b < a) throw new Error(`markers ${open} … ${close} not found`);
  const inline = !text.slice(a, b).includes('\n');
  return inline
    ? `${text.slice(0, a + open.length)}${body.trim()}${text.slice(b)}`
    : `${text.slice(0, a + open.length)}\n${body.trim()}\n${text.slice(b)}`;
}

const load = (root, rel) => import(pathToFileURL(path.join(root, rel)).href);

/** What the code says: environment variables, CLI commands, metric series. */
export async function codeFacts(root) {
  const { envSchema } = await load(root, 'packages/api/src/config/env.ts');
  const { envDocs } = await load(root, 'packages/api/src/config/env.docs.ts');
  const { commands } = await load(root, 'packages/api/src/cli/commands.ts');
  const { createMetrics } = await load(root, 'packages/api/src/metrics/metrics.ts');
  const { ERROR_CODES } = await load(root, 'packages/ui/src/api/schemas/errorCodes.ts');
  const metrics = createMetrics();
  metrics.collectFrom({ dialect: 'sqlite' }, {}); // registers the scrape-time gauges; nothing is read before a scrape
  const { modules } = await load(root, 'packages/api/src/wiring/modules.ts');
  metrics.addGauges(modules.flatMap((m) => m.gauges?.({ db: { dialect: 'sqlite' } }) ?? [])); // each area's own gauges
  const series = metrics.registry
    .getMetricsAsArray()
    .filter((m) => !/^(process|nodejs)_/.test(m.name))
    .map((m) => ({ name: m.name, type: m.type, labels: m.labelNames ?? [], help: m.help }));
  return {
    envSchema,
    envDocs,
    envNames: Object.keys(envSchema.shape),
    commands,
    commandNames: Object.keys(commands),
    series,
    errorCodes: ERROR_CODES,
  };
}

/**
 * What the running app says: its mounted API routes (as test/routeList.ts counts them) and the
 * OpenAPI document it serves, from an app built on a throwaway embedded store; and the principals
 * of the authorization matrix, read from its test.
 */
export async function appFacts(root) {
  const os = await import('node:os');
  const { parseEnv } = await load(root, 'packages/api/src/config/env.ts');
  const { loadSiteConfig } = await load(root, 'packages/api/src/config/site.ts');
  const { createContext, closeContext } = await load(root, 'packages/api/src/kernel/context.ts');
  const { createApp } = await load(root, 'packages/api/src/wiring/app.ts');
  const { modules, allProjections } = await load(root, 'packages/api/src/wiring/modules.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-figures-'));
  const secret = 'docs-figures-throwaway-secret-0123456789';
  const env = parseEnv({
    NODE_ENV: 'development',
    DATA_DIR: dir,
    TOKEN_SECRET: secret,
    MFA_KEY_SECRET: secret,
    DATA_KEY_SECRET: secret,
    LOG_LEVEL: 'silent',
    LOG_FORMAT: 'json',
  });
  const { config: site } = loadSiteConfig(path.join(root, 'site.config.example.json'));
  const ctx = await createContext(env, site, allProjections());
  try {
    const app = createApp(ctx, modules);
    const methods = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
    const routes = new Set(
      app.routes
        .filter((r) => methods.has(r.method.toUpperCase()) && r.path.startsWith('/api/') && !r.path.includes('*'))
        .map((r) => `${r.method.toUpperCase()} ${r.path}`),
    );
    const res = await app.request('/api/openapi.json');
    if (res.status !== 200) throw new Error(`GET /api/openapi.json answered ${res.status}`);
    const text = await res.text();
    const openapiBytes = Buffer.byteLength(text);
    const doc = JSON.parse(text);
    const verbs = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
    const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).filter((k) => verbs.has(k)).length, 0);
    const matrixSource = fs.readFileSync(path.join(root, 'packages/api/test/authorization.int.test.ts'), 'utf8');
    const list = /const PRINCIPALS = \[([^\]]*)\] as const/.exec(matrixSource);
    if (!list) throw new Error('PRINCIPALS not found in packages/api/test/authorization.int.test.ts');
    const principals = [...list[1].matchAll(/'([^']+)'/g)].length;
    return { routes: routes.size, paths: Object.keys(doc.paths).length, operations, principals, openapiBytes };
  } finally {
    await closeContext(ctx);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const n = (x) => x.toLocaleString('en-US');

export function renderOpenapi({ routes, paths, operations }) {
  return `${n(paths)} paths, ${n(operations)} operations (every one of the ${n(routes)} mounted routes, plus tus \`OPTIONS\` and the \`HEAD\` requests that mean something)`;
}
/** The served document's size, to the nearest 10 KB (a figure that moves with every described field otherwise). */
/** The error vocabulary (packages/ui/src/api/schemas/errorCodes.ts): code, status, meaning. */
export const renderErrorCodes = ({ errorCodes }) =>
  table(
    ['code', 'status', 'meaning'],
    Object.entries(errorCodes).map(([code, { status, meaning }]) => [`\`${code}\``, status, meaning]),
  );
export const renderOpenapiSize = ({ openapiBytes }) => `~${Math.round(openapiBytes / 10_000) * 10} KB`;
export const renderMatrixSummary = ({ routes, principals }) =>
  `**${n(routes * principals)} cells per store** (${n(routes)} routes × ${n(principals)} principals), ${n(2 * routes * principals)} in all`;
export const renderMatrix = ({ routes, principals }) =>
  `**${n(routes)} routes × ${n(principals)} = ${n(routes * principals)} cells per store, ${n(2 * routes * principals)} over SQLite and PostgreSQL**`;
export const renderMatrixLog = ({ routes, principals }) =>
  `\`[authorization matrix sqlite] ${routes} routes × ${principals} principals = ${routes * principals} cells\``;

function schemaDefault(field) {
  const r = field.safeParse(undefined);
  if (!r.success || r.data === undefined) return '—';
  const v = r.data;
  const gib = typeof v === 'number' && v >= 1024 ** 3 && v % 1024 ** 3 === 0 ? ` (${v / 1024 ** 3} GiB)` : '';
  return `\`${v}\`${gib}`;
}

function enumValues(field) {
  let f = field;
  while (f?.def && (f.def.type === 'default' || f.def.type === 'optional')) f = f.def.innerType;
  return f?.def?.type === 'enum' ? Object.values(f.def.entries) : null;
}

export function renderEnv({ envSchema, envDocs }) {
  const rows = Object.entries(envSchema.shape).map(([name, field]) => {
    const doc = envDocs[name];
    const values = enumValues(field);
    const meaning =
      (doc?.meaning ?? '**undocumented: add it to packages/api/src/config/env.docs.ts**') +
      (values && values.length <= 9 ? ` (one of ${values.map((v) => `\`${v}\``).join(', ')})` : '');
    return [`\`${name}\``, doc?.default ?? schemaDefault(field), meaning];
  });
  return table(['variable', 'default', 'meaning'], rows);
}

export function renderCli({ commands }) {
  const rows = Object.entries(commands).map(([name, c]) => [`\`pnpm cli ${name}\``, c.summary]);
  return table(['command', 'what it does'], rows);
}

export function renderMetrics({ series }) {
  const rows = series.map((s) => [`\`${s.name}\``, s.type, s.labels.map((l) => `\`${l}\``).join(', '), s.help]);
  return table(['series', 'type', 'labels', 'what'], rows);
}

/**
 * The newest full run of every bench in bench/RESULTS.md (its date, machine line and table), then
 * the tables of newer full runs of some benches only (`pnpm bench NAME`), each under its heading.
 */
export function renderBench(resultsMd) {
  const sections = resultsMd.split(/^## /m).slice(1);
  const heading = (s) => s.split('\n')[0].trim();
  const lastAll = sections.findLastIndex((s) => /— full run$/.test(heading(s)));
  if (lastAll < 0) return '_No full run in bench/RESULTS.md yet._';
  const parts = (s) => {
    const lines = s.split('\n');
    return { machine: lines.find((l) => l.startsWith('Machine:')) ?? '', rows: lines.filter((l) => l.startsWith('|')) };
  };
  const all = parts(sections[lastAll]);
  const out = [
    `**Latest figures**: the newest full run in [\`bench/RESULTS.md\`](../bench/RESULTS.md), ${heading(sections[lastAll])}. ${all.machine}`,
    '',
    ...all.rows,
  ];
  // A partial run is shown unless a newer partial run measured all of its benches again.
  const benchesOf = (s) =>
    heading(s)
      .replace(/^.*— full run of /, '')
      .split(/,\s*/);
  const partial = sections.slice(lastAll + 1).filter((x) => /— full run of /.test(heading(x)));
  const current = partial.filter((s, i) => benchesOf(s).some((b) => !partial.slice(i + 1).some((newer) => benchesOf(newer).includes(b))));
  for (const s of current) {
    const p = parts(s);
    out.push('', `**Since then**, ${heading(s)}. ${p.machine}`, '', ...p.rows);
  }
  return out.join('\n');
}

/** Every generated block, rendered now: `[{ file, before, after }]` per file. */
export async function regenerate(root, facts) {
  facts ??= { ...(await codeFacts(root)), ...(await appFacts(root)) };
  const render = {
    openapi: () => renderOpenapi(facts),
    'openapi-size': () => renderOpenapiSize(facts),
    'error-codes': () => renderErrorCodes(facts),
    'matrix-summary': () => renderMatrixSummary(facts),
    matrix: () => renderMatrix(facts),
    'matrix-log': () => renderMatrixLog(facts),
    env: () => renderEnv(facts),
    cli: () => renderCli(facts),
    metrics: () => renderMetrics(facts),
    bench: () => renderBench(fs.readFileSync(path.join(root, 'bench/RESULTS.md'), 'utf8')),
  };
  const byFile = new Map();
  for (const { file, name } of BLOCKS) {
    const before = byFile.get(file)?.after ?? fs.readFileSync(path.join(root, file), 'utf8');
    const after = replaceBlock(before, name, render[name]());
    byFile.set(file, { file, before: byFile.get(file)?.before ?? before, after });
  }
  return [...byFile.values()];
}
