/** The video aggregate's command handler (eventstore/commandHandler.ts): the decider bound to `video-{id}` once. */
import { aggregate } from '../eventstore/commandHandler.js';
import { videoDecider, videoStreamId } from './video.decider.js';

export const videos = aggregate(videoDecider, videoStreamId);
