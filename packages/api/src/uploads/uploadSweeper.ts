/**
 * Abandoned uploads do not fill the disk: an open upload that received no byte for
 * `UPLOAD_STALE_DAYS` is canceled and its partial file removed, at start-up and hourly.
 */
import type { AppContext } from '../context.js';
import type { Started } from '../module.js';
import { removeUploadFiles } from './uploadFiles.js';
import { finishUploadSession, staleOpenSessions } from './uploadSessions.js';

export const UPLOAD_STALE_DAYS = 7;
const SWEEP_EVERY_MS = 60 * 60 * 1000;

export async function sweepStaleUploads(ctx: AppContext): Promise<number> {
  const now = ctx.clock.now();
  const stale = await staleOpenSessions(ctx.db, new Date(now.getTime() - UPLOAD_STALE_DAYS * 86_400_000));
  for (const id of stale) {
    if (await finishUploadSession(ctx.db, id, { status: 'canceled', error: 'Abandoned' }, now))
      await removeUploadFiles(ctx.env.DATA_DIR, id);
  }
  if (stale.length) ctx.logger.info({ count: stale.length }, 'abandoned uploads removed');
  return stale.length;
}

export function startUploadSweeper(ctx: AppContext): Started {
  const run = () => sweepStaleUploads(ctx).catch((err) => ctx.logger.error({ err }, 'upload sweep failed'));
  void run();
  const timer = setInterval(run, SWEEP_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
    },
  };
}
