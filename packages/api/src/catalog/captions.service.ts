/**
 * The admin's caption use cases: add a track (the same language replaces it), remove one; and the
 * reads the catalog, the stream and the HLS master playlist need. The file is parsed and written
 * again (captions.ts) before anything is stored; the cleaned WebVTT goes to the media store first,
 * then the event is recorded, then a replaced or removed file is deleted (a crash in between leaves
 * an orphan file, never a track without its file).
 */

import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import { cleanText, showsNothing, TEXT_PROBLEM_MESSAGES, textProblem } from '@members/ui/api/schemas';
import type { Queryable } from '../db/types.js';
import type { AppContext } from '../kernel/context.js';
import { appError } from '../shared/errors.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { type CaptionParseError, canonicalLanguage, languageLabel, MAX_CAPTION_BYTES, parseCaptionFile } from './captions.js';
import type { CaptionRow } from './catalog.projection.js';
import { findVideo } from './catalog.queries.js';
import { videos } from './video.commands.js';
import type { CaptionTrack } from './video.decider.js';

export const CAPTION_LANGUAGE_INVALID = 'language must be a BCP 47 tag such as en or pt-BR';
export const CAPTION_FILE_MISSING = 'file is required: a .vtt or .srt caption file';
export const CAPTION_FILE_TOO_LARGE = `The caption file is too large (limit ${MAX_CAPTION_BYTES} bytes)`;
export const CAPTION_LABEL_INVALID = 'label must be 1 to 80 characters on one line';

/** A track as the API answers it. */
export interface CaptionTrackView {
  language: string;
  label: string;
}

export interface CaptionUpload {
  bytes: Uint8Array;
  language: string;
  label?: string | undefined;
}

/** The caption tracks of a video, by language. */
export async function captionsOf(db: Queryable, videoId: string): Promise<CaptionRow[]> {
  return db.all<CaptionRow>('SELECT * FROM video_captions WHERE video_id = ? ORDER BY language', [videoId]);
}

/** One track, by its language in any case (`pt-br` finds `pt-BR`). */
export async function captionOf(db: Queryable, videoId: string, language: string): Promise<CaptionRow | undefined> {
  const tag = canonicalLanguage(language);
  if (!tag) return undefined;
  return db.get<CaptionRow>('SELECT * FROM video_captions WHERE video_id = ? AND language = ?', [videoId, tag]);
}

const decodeUtf8 = (bytes: Uint8Array): string | null => {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
};

export async function addCaptionTrack(
  ctx: AppContext,
  videoId: string,
  upload: CaptionUpload,
  caller: Caller & { actorId: string },
): Promise<Result<CaptionTrackView & { cues: number; format: 'vtt' | 'srt' }>> {
  const language = canonicalLanguage(upload.language.trim());
  if (!language) return failure('validation.invalid_input', CAPTION_LANGUAGE_INVALID);
  // The text policy (@members/ui/api/schemas text.ts): NFC, zero-width spaces stripped, no control or direction characters.
  const typed = cleanText(upload.label ?? '', { multiLine: false });
  const problem = textProblem(typed, { multiLine: false });
  if (problem) return failure('validation.invalid_input', `label ${TEXT_PROBLEM_MESSAGES[problem]}`);
  const label = showsNothing(typed) ? languageLabel(language) : typed;
  if (label.length > 80) return failure('validation.invalid_input', CAPTION_LABEL_INVALID);
  if (upload.bytes.byteLength > MAX_CAPTION_BYTES) return failure('validation.invalid_input', CAPTION_FILE_TOO_LARGE);
  const video = await findVideo(ctx.db, videoId, { includeUnpublished: true });
  if (!video) return failure('video.not_found', 'Video not found');
  const text = decodeUtf8(upload.bytes);
  const parsed: { ok: false; error: CaptionParseError } | ReturnType<typeof parseCaptionFile> =
    text === null
      ? { ok: false, error: { line: 1, message: 'Not a valid SRT or WebVTT file: line 1: not UTF-8 text' } }
      : parseCaptionFile(text, Number(video.duration_seconds));
  // A refusal of the file itself names the line the parser stopped at (`details.line`).
  if (!parsed.ok)
    return { ok: false, error: appError('caption.invalid_file', parsed.error.message, { details: { line: parsed.error.line } }) };

  const hash = createHash('sha256').update(parsed.vtt).digest('hex').slice(0, 8);
  const storage = ctx.media;
  const staged = await storage.stagingPath('.vtt');
  await fsp.writeFile(staged, parsed.vtt, 'utf8');
  const stored = await storage.putFile(videoId, `captions/${language}.${hash}.vtt`, staged).finally(() => fsp.rm(staged, { force: true }));
  const track: CaptionTrack = { language, label, key: stored.key, format: parsed.format, cues: parsed.cues };
  const earlier = await captionOf(ctx.db, videoId, language);
  const meta = eventMetadata(ctx, caller);
  const result = await videos(ctx.store).handle(
    videoId,
    { type: 'AddCaptionTrack', data: { videoId, track, actorId: caller.actorId, at: meta.at } },
    meta,
  );
  if (!result.ok) {
    if (!earlier || earlier.caption_key !== stored.key) await storage.remove(stored.key).catch(() => {});
    return result;
  }
  if (earlier && earlier.caption_key !== stored.key)
    await storage.remove(earlier.caption_key).catch((err) => ctx.logger.warn({ err, videoId }, 'could not remove a replaced caption file'));
  return success({ language, label, cues: parsed.cues, format: parsed.format });
}

export async function removeCaptionTrack(
  ctx: AppContext,
  videoId: string,
  languageParam: string,
  caller: Caller & { actorId: string },
): Promise<Result<{ videoId: string; language: string; deleted: true }>> {
  const language = canonicalLanguage(languageParam) ?? languageParam;
  const meta = eventMetadata(ctx, caller);
  const result = await videos(ctx.store).handle(
    videoId,
    { type: 'RemoveCaptionTrack', data: { videoId, language, actorId: caller.actorId, at: meta.at } },
    meta,
  );
  if (!result.ok) return result;
  const removed = result.events.find((e) => e.type === 'CaptionTrackRemoved');
  if (removed?.type === 'CaptionTrackRemoved')
    await ctx.media.remove(removed.data.key).catch((err) => ctx.logger.warn({ err, videoId }, 'could not remove a caption file'));
  return success({ videoId, language, deleted: true });
}
