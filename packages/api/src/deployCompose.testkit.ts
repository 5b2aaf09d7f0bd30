/**
 * Reads deploy/'s Compose files the way `docker compose -f A -f B config` would, for the checks in
 * deployCompose.unit.test.ts (no container engine here): `${VAR}`, `${VAR:-default}`, `${VAR-default}`,
 * `${VAR:?message}`, `${VAR?message}` and `$$` from the operator's variables (`interpolateCompose`), YAML merge keys, and Compose's merge of several
 * files (mappings merged, sequences appended, `volumes` replaced by container path, `command`
 * replaced, `!override` replacing the whole value).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, Scalar, YAMLMap, type YAMLSeq } from 'yaml';

export const DEPLOY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../deploy');

export interface Service {
  build?: { context: string; dockerfile: string };
  image?: string;
  command?: string[];
  container_name?: string;
  ports?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  profiles?: string[];
}
export interface ComposeModel {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

/** `!override [...]` kept as `{ $override: [...] }` until the merge replaces the earlier value with it. */
const overrideTag = {
  tag: '!override',
  collection: 'seq' as const,
  resolve: (seq: YAMLSeq) => {
    const map = new YAMLMap();
    map.set(new Scalar('$override'), seq);
    return map;
  },
};

/** KEY=VALUE lines of an env file (comments and blank lines skipped). */
export function readEnvFile(file: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) vars[m[1] as string] = (m[2] as string).replace(/\s+#.*$/, '').trim();
  }
  return vars;
}

/** Every `${NAME…}` a file refers to. */
export const referencedVariables = (file: string) =>
  new Set([...fs.readFileSync(path.join(DEPLOY, file), 'utf8').matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1] as string));

/**
 * Compose's interpolation of one value (https://docs.docker.com/compose/compose-file/12-interpolation/):
 * `${VAR}` (empty when unset), `${VAR:-default}` (unset or empty) and `${VAR-default}` (unset only),
 * `${VAR:?message}` refusing when unset or empty and `${VAR?message}` when unset only, and `$$` for
 * a literal `$`. A refusal is worded as `docker compose config` words it, after the value's path.
 * @example interpolateCompose({ db: '${PW:?set PW}' }, {}) // throws 'error while interpolating db: required variable PW is missing a value: set PW'
 */
export function interpolateCompose(value: unknown, vars: Record<string, string | undefined>, at = ''): unknown {
  if (typeof value === 'string')
    return value.replace(
      /\$\$|\$\{([A-Z][A-Z0-9_]*)(?:(:?[-?])([^}]*))?\}/g,
      (whole, name: string | undefined, op: string | undefined, arg: string) => {
        if (whole === '$$') return '$';
        const v = vars[name as string];
        const missing = op?.startsWith(':') ? !v : v === undefined;
        if (op?.endsWith('?') && missing)
          throw new Error(`${at ? `error while interpolating ${at}: ` : ''}required variable ${name} is missing a value: ${arg}`);
        if (op?.endsWith('-') && missing) return arg;
        return v ?? '';
      },
    );
  if (Array.isArray(value)) return value.map((v) => interpolateCompose(v, vars, `${at}[]`));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateCompose(v, vars, at ? `${at}.${k}` : k)]));
  return value;
}

const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The container path of a short-syntax volume (`source:target[:mode]` or an anonymous `target`). */
export const volumeTarget = (v: string) => {
  const parts = v.split(':');
  return (parts.length === 1 ? parts[0] : parts[1]) as string;
};

function merge(base: unknown, over: unknown, key = ''): unknown {
  if (isMap(over) && '$override' in over) return over.$override;
  if (over === undefined) return base;
  if (key === 'command') return over;
  if (key === 'volumes' && Array.isArray(base) && Array.isArray(over)) {
    const targets = new Set(over.map((v) => volumeTarget(v as string)));
    return [...base.filter((v) => !targets.has(volumeTarget(v as string))), ...over];
  }
  if (Array.isArray(base) && Array.isArray(over)) return [...base, ...over];
  if (isMap(base) && isMap(over)) {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(over)) out[k] = merge(base[k], v, k);
    return out;
  }
  return over;
}

/** The model of `files` (in deploy/, merged in order) with `vars` as the operator's environment. */
export function loadCompose(files: string[], vars: Record<string, string>): ComposeModel {
  let model: unknown = {};
  for (const file of files) {
    const doc = parse(fs.readFileSync(path.join(DEPLOY, file), 'utf8'), { merge: true, customTags: [overrideTag] });
    model = merge(model, interpolateCompose(doc, vars));
  }
  return model as ComposeModel;
}

/** The `ENV` a Dockerfile's last stage sets. */
export function dockerfileEnv(file: string): Record<string, string> {
  const text = fs.readFileSync(path.join(DEPLOY, file), 'utf8');
  const last = text.slice(text.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const m of last.matchAll(/^ENV\s+(.+)$/gm))
    for (const pair of (m[1] as string).split(/\s+/)) {
      const [k, v] = pair.split('=');
      if (k && v !== undefined) env[k] = v;
    }
  return env;
}
