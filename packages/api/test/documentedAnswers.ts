/**
 * Checks real answers against the OpenAPI document: the status must be documented for the route
 * (method + path template), and a JSON body must match the documented schema of that status
 * (ajv, JSON Schema 2020-12, which OpenAPI 3.1 uses). Wraps the harness's `apiClient`, so any suite
 * can record what it calls and assert that every answer matched.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { type ApiAnswer, apiClient } from './harness.js';

const DOC_ID = 'openapi.json';
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The documented path template (`/videos/{id}`) that a concrete path below /api matches. */
function templateOf(paths: string[], concrete: string): string | undefined {
  const c = concrete.split('?')[0]?.split('/') ?? [];
  return paths.find((t) => {
    const s = t.split('/');
    // A template may fill part of a segment (`{height}p`): each `{…}` stands for one or more characters of it.
    const matches = (seg: string, i: number) =>
      new RegExp(`^${seg.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(c[i] ?? '');
    return s.length === c.length && s.every(matches);
  });
}

export interface DocumentedCall {
  method: string;
  path: string;
  status: number;
  problem?: string;
}

export function documentedAnswers(doc: { paths: Record<string, Record<string, any>> }, baseUrl: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: DOC_ID });
  const paths = Object.keys(doc.paths);
  const calls: DocumentedCall[] = [];

  function check(method: string, path: string, answer: Pick<ApiAnswer, 'status' | 'body'>): void {
    const m = method.toLowerCase();
    const template = templateOf(paths, path);
    const call: DocumentedCall = { method, path, status: answer.status };
    calls.push(call);
    const op = template ? doc.paths[template]?.[m] : undefined;
    if (!template || !op) {
      call.problem = 'not in the document';
      return;
    }
    const response = op.responses?.[String(answer.status)];
    if (!response) {
      call.problem = `status ${answer.status} not documented (documented: ${Object.keys(op.responses ?? {}).join(', ')})`;
      return;
    }
    if (!response.content?.['application/json']) {
      call.problem = `status ${answer.status} has no JSON schema`;
      return;
    }
    const validate = ajv.getSchema(
      `${DOC_ID}#/${pointer('paths', template, m, 'responses', String(answer.status), 'content', 'application/json', 'schema')}`,
    );
    if (!validate) {
      call.problem = 'schema not found';
      return;
    }
    if (!validate(answer.body)) call.problem = `${ajv.errorsText(validate.errors)} in ${JSON.stringify(answer.body).slice(0, 400)}`;
  }

  const raw = apiClient(baseUrl);
  const call: typeof raw.call = async (method, p, opts) => {
    const answer = await raw.call(method, p, opts);
    check(method, p, answer);
    return answer;
  };
  return {
    calls,
    check,
    call,
    get: <T = any>(p: string, token?: string) => call<T>('GET', p, { token }),
    post: <T = any>(p: string, body?: unknown, token?: string) => call<T>('POST', p, { body, token }),
    put: <T = any>(p: string, body?: unknown, token?: string) => call<T>('PUT', p, { body, token }),
    del: <T = any>(p: string, token?: string) => call<T>('DELETE', p, { token }),
    /** Every recorded call that did not match the document, as readable lines. */
    problems: () => calls.filter((c) => c.problem).map((c) => `${c.method} ${c.path} → ${c.status}: ${c.problem}`),
  };
}
