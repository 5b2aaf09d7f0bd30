/**
 * A periodic pass (the billing lifecycle, scheduled releases): runs `pass` at once and then every
 * `intervalMs`, never two at once (a tick while one runs is skipped); a failed pass is logged and the
 * next tick tries again. `stop()` clears the timer and waits for a pass under way.
 */
import type pino from 'pino';

export function startPeriodic(pass: () => Promise<unknown>, intervalMs: number, logger: pino.Logger, failure: string) {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    running = pass()
      .catch((err) => logger.error({ err }, failure))
      .finally(() => {
        busy = false;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
