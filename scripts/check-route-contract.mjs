// Every API route states its contract once, in its `describe({ … })` (packages/api/src/http/openapi.ts),
// which enforces it before the handler (run by `pnpm lint`). Counts, in packages/api/src outside tests,
// and fails above 0:
// - hand parses: a read of the raw request input (`c.req.query(…)`, `c.req.queries(…)`, `c.req.param(…)`)
//   anywhere but http/openapi.ts, the one place that parses what a route's schemas declare; handlers
//   read `c.req.valid('param' | 'query' | 'json')`;
// - handler access checks: a route handler (the last argument of `api.get/post/put/patch/delete/options(…)`)
//   that checks a signature, a token, a ticket, an owner or an account's standing itself, directly or
//   through a function of its own file it calls. A route declares that in its `access` (a credential,
//   `owner`), and reads what was granted from the context (`grantOf(c, …)`, `userOf(c)`).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { isTest, sourceFiles } from './sourceFiles.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const api = path.join(root, 'packages', 'api', 'src');

/** The one file that reads raw request input: the contract's own enforcement. */
const CONTRACT = path.join('http', 'openapi.ts');

const HAND_PARSE = /\.req\.(?:query|queries|param)\s*\(/;

/** Checks that decide who may call: signatures, tokens, tickets, owners, standings; the side channel that carried an admitted caller. */
export const ACCESS_CHECKS = [
  'verifyHlsGrant',
  'verifyKeyToken',
  'verifyStreamSignature',
  'thumbnailGrantUser',
  'checkFileAccess',
  'checkFileQuery',
  'runnerTokenName',
  'redeemTicket',
  'mayTouchUpload',
  'adminLacksSecondFactor',
  'holderStanding',
  'approvedOrPending',
  'adminOnly',
  'authorizeViewing',
  'recheckAccess',
];
const ACCESS_CALL = new RegExp(String.raw`\b(?:${ACCESS_CHECKS.join('|')})\s*\(|\.actors\.(?:set|get)\(`);
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'options', 'on', 'all']);

/** The lines of `text` that read raw request input (1-based). */
export function handParses(text) {
  const found = [];
  text.split('\n').forEach((line, i) => {
    if (/^\s*(\/\/|\*)/.test(line)) return;
    if (HAND_PARSE.test(line)) found.push({ line: i + 1, text: line.trim() });
  });
  return found;
}

/** The functions a file declares by name (declarations and `const x = (…) => …`), for following a handler's calls. */
function localFunctions(sf) {
  const fns = new Map();
  const visit = (n) => {
    if (ts.isFunctionDeclaration(n) && n.name && n.body) fns.set(n.name.text, n);
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer && ts.isFunctionLike(n.initializer))
      fns.set(n.name.text, n.initializer);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return fns;
}

/** Whether `node` (a handler) reaches an access check, itself or through the file's own functions it names. */
function reachesAccessCheck(node, fns, sf) {
  const seen = new Set();
  const queue = [node];
  while (queue.length) {
    const n = queue.shift();
    if (seen.has(n)) continue;
    seen.add(n);
    const text = n.getText(sf).replace(/\/\/.*$/gm, '');
    if (ACCESS_CALL.test(text)) return true;
    const walk = (m) => {
      if (ts.isIdentifier(m) && fns.has(m.text) && fns.get(m.text) !== n) queue.push(fns.get(m.text));
      ts.forEachChild(m, walk);
    };
    walk(n);
  }
  return false;
}

/** The route handlers of a file that check access themselves: `{ line, route }`. */
export function handlerAccessChecks(fileName, text) {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const fns = localFunctions(sf);
  const found = [];
  const visit = (n) => {
    if (
      ts.isCallExpression(n) &&
      ts.isPropertyAccessExpression(n.expression) &&
      METHODS.has(n.expression.name.text) &&
      n.arguments.length >= 2 &&
      ts.isStringLiteralLike(n.arguments[0])
    ) {
      const handler = n.arguments[n.arguments.length - 1];
      const target = ts.isIdentifier(handler) ? fns.get(handler.text) : handler;
      if (target && reachesAccessCheck(target, fns, sf))
        found.push({
          line: sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1,
          route: `${n.expression.name.text.toUpperCase()} ${n.arguments[0].text}`,
        });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const parses = [];
  const checks = [];
  for (const file of [...sourceFiles(api)].filter((f) => !isTest(path.basename(f)))) {
    const text = fs.readFileSync(file, 'utf8');
    const rel = path.relative(root, file);
    if (path.relative(api, file) !== CONTRACT) for (const hit of handParses(text)) parses.push(`${rel}:${hit.line}: ${hit.text}`);
    for (const hit of handlerAccessChecks(file, text)) checks.push(`${rel}:${hit.line}: ${hit.route}`);
  }
  console.log(`routes: ${parses.length} hand parses of request input, ${checks.length} handlers checking access themselves`);
  if (parses.length || checks.length) {
    if (parses.length) console.error(`Read input with c.req.valid(…) from the route's describe schemas:\n${parses.join('\n')}`);
    if (checks.length)
      console.error(`Declare the check in the route's access (a credential, owner) and read its grant:\n${checks.join('\n')}`);
    process.exit(1);
  }
}
