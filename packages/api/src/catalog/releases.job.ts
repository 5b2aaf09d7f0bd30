/**
 * The release job (issue 40): on the leader only (kernel `background`), every `RELEASES_TICK_MS`
 * (15 s by default, at most a minute) it reads from the catalog read model which scheduled videos are
 * due and records their `VideoPublished` (videos.service.ts `releaseVideo`). No timer holds a schedule:
 * the read model is the record, so a restart, a new leader or a schedule set on another process is
 * picked up at the next tick. Were two processes to release the same video at once, the append's
 * expected version refuses the second, and the decider records nothing for a video already out.
 */
import type { AppContext } from '../kernel/context.js';
import { startPeriodic } from '../shared/periodic.js';
import { dueReleases } from './releases.js';
import { releaseVideo } from './videos.service.js';

/** One pass: publishes every due video; answers how many were published. */
export async function runReleases(ctx: AppContext): Promise<number> {
  let released = 0;
  for (const videoId of await dueReleases(ctx.db, ctx.clock.now().getTime())) {
    const result = await releaseVideo(ctx, videoId);
    if (!result.ok) ctx.logger.warn({ videoId, error: result.error }, 'scheduled release not recorded; next tick retries');
    else if (result.value.released) {
      released++;
      ctx.logger.info({ videoId }, 'scheduled video released');
    }
  }
  return released;
}

/** Starts the periodic pass (and one at once); `stop()` waits for a pass under way. */
export function startReleaseJob(ctx: AppContext, intervalMs: number) {
  return startPeriodic(() => runReleases(ctx), intervalMs, ctx.logger, 'release pass failed; will retry');
}
