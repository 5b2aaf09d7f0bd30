/** Live shows (issue 43): what the admin schedules and is told once (the stream key), what members see and play. */
import { z } from 'zod';
import { accessLevelSchema, exclusiveToSchema } from './catalog';
import { multiLineText, singleLineText } from './text';

export const LIVE_SHOW_STATUSES = ['scheduled', 'live', 'ended'] as const;
export const liveShowStatusSchema = z.enum(LIVE_SHOW_STATUSES);

/** What the player says instead of an error while there is no live picture (issue 43's copy). */
export const LIVE_NOT_STARTED = 'The show has not started';
export const LIVE_ENDED = 'The show has ended';
/** Live, but its first segments are not written yet (a few seconds after the creator starts): the page asks again. */
export const LIVE_STARTING = 'The show is starting';

export const scheduleLiveShowSchema = z.object({
  // The text policy (text.ts): members read these; no control or direction characters.
  title: singleLineText({ min: 1, max: 200, required: 'Please give the show a title', empty: 'Please give the show a title' }),
  description: multiLineText({ min: 0, max: 5000, required: 'must be a string' }).optional(),
  accessLevel: accessLevelSchema,
  exclusiveTo: exclusiveToSchema.nullable().optional(),
  startsAt: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with an offset (e.g. 2026-12-03T20:00:00Z)' }),
  saveReplay: z.boolean(),
});

const showFields = {
  id: z.string(),
  title: z.string(),
  description: z.string(),
  status: liveShowStatusSchema,
  accessLevel: accessLevelSchema,
  exclusiveTo: exclusiveToSchema.nullable(),
  startsAt: z.string(),
};

/** The admin's view of a show; `streamKey` only in the answer that made it (scheduling, rotation). */
export const adminLiveShowSchema = z.object({
  ...showFields,
  saveReplay: z.boolean(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  replayVideoId: z.string().nullable(),
  /** OBS "Server" (Settings → Stream → Custom). */
  ingestUrl: z.string(),
  /** OBS "Stream Key": shown once, stored hashed; rotate to see a new one. */
  streamKey: z.string().optional(),
});
export const adminLiveShowAnswerSchema = z.object({ show: adminLiveShowSchema });
export const adminLiveShowsAnswerSchema = z.object({ shows: z.array(adminLiveShowSchema) });

export const memberLiveShowSchema = z.object({ ...showFields, mayWatch: z.boolean() });
export const liveShowsAnswerSchema = z.object({ shows: z.array(memberLiveShowSchema) });

export const liveStreamInfoSchema = z.object({
  status: liveShowStatusSchema,
  /** The master playlist (signed for this viewer) while the show is live and its first segments are written; null before, while starting, and after. */
  hlsUrl: z.string().nullable(),
  /** The renditions this viewer's plan plays. */
  qualities: z.array(z.string()),
  /** "The show has not started" / "The show is starting" / "The show has ended" when there is no picture; null while it plays. */
  message: z.string().nullable(),
  watermarkText: z.string(),
  expiresAt: z.string(),
});
