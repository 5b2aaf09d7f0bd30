// The processes a bench starts (API servers, runners, nginx, stand-in servers) end with the bench,
// however it ends: normally, on an error, on Ctrl-C or SIGTERM, or when its output pipe closes
// (`pnpm bench | head`: the next write fails with EPIPE). A SIGKILLed bench cannot clean up; the
// bench test kills its whole process group for that case (packages/api/test/bench.int.test.ts).
// Before this, a bench that died early left its servers running beside whatever ran next.

/** @type {Set<import('node:child_process').ChildProcess>} */
const owned = new Set();
let installed = false;

function install() {
  installed = true;
  // 'exit' handlers run synchronously: kill() is enough, the children's own shutdown does the rest.
  process.on('exit', () => {
    for (const child of owned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ])
    process.once(signal, () => process.exit(code));
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (err) => {
      if (err.code === 'EPIPE') process.exit(1);
      throw err;
    });
}

/**
 * Ties `child` to this process: it is sent SIGTERM when this process exits, if it has not ended.
 * @template {import('node:child_process').ChildProcess} C
 * @param {C} child
 * @returns {C}
 */
export function ownChild(child) {
  if (!installed) install();
  owned.add(child);
  child.once('exit', () => owned.delete(child));
  return child;
}
