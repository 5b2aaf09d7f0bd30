/**
 * Feeds the transcode queue from the log, in the same transaction as its checkpoint, so each
 * upload or retry queues its job exactly once (also for videos uploaded before this existed: a new
 * subscriber starts at the beginning of the log). A deleted video's job and key go with it.
 */
import type { Subscriber } from '../eventstore/subscriber.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { enqueueTranscode } from './transcodeJobs.js';
import { removeKey } from './videoKeys.js';

export const transcodeQueueSubscriber: Subscriber = {
  name: 'transcode-queue',
  types: ['VideoUploaded', 'TranscodeRetried', 'VideoDeleted'],
  async handle(tx, event: RecordedEvent) {
    const videoId = (event.data as { videoId: string }).videoId;
    if (event.type === 'VideoDeleted') {
      await tx.run('DELETE FROM transcode_jobs WHERE video_id = ?', [videoId]);
      await removeKey(tx, videoId);
      return;
    }
    await enqueueTranscode(tx, videoId, event.recordedAt);
  },
};
