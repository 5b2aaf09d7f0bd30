/**
 * An identification request, from the CLI or an admin (the Leak tracing screen, examinations.ts):
 * the copy examined, then one `LeakCopyExamined` event on the `forensics` stream saying who asked,
 * the file's SHA-256 and the outcome (the member's id only when named, never their e-mail), so every
 * look at a leak is on the record. A file ffmpeg cannot decode is an outcome too (`unreadable`).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { AppContext } from '../kernel/context.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { FramesError } from './frames.js';
import { describeIdentification, type Identification, identifyCopy } from './identify.js';

export const FORENSICS_STREAM = 'forensics';
export const LEAK_COPY_EXAMINED = 'LeakCopyExamined';

/** What one examination found: an identification, or a file that is no video ffmpeg can read. */
export type Examination = Identification | { kind: 'unreadable'; videoId: string | null; bits: 0; reason: string };

/** The `LeakCopyExamined` event's data (fields after `at` were added with the admin screen; the CLI's older events lack them). */
export interface LeakCopyExaminedData {
  sha256: string;
  videoId: string | null;
  outcome: Examination['kind'];
  memberId: string | null;
  bits: number;
  at: string;
  examinationId?: string | null;
  fileName?: string | null;
  distance?: number | null;
  bound?: number | null;
  stretch?: { from: number; to: number } | null;
  neededSeconds?: number | null;
  reason?: string | null;
}

export interface ExamineOptions {
  videoId?: string | undefined;
  /** The admin screen's examination this is (examinations.ts). */
  examinationId?: string | undefined;
  fileName?: string | undefined;
  /** Already counted while the upload was received. */
  sha256?: string | undefined;
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The outcome in one line: what the CLI prints and the admin screen shows. */
export function describeExamination(r: Examination): string {
  if (r.kind === 'unreadable') return `unreadable: ${r.reason}`;
  return describeIdentification(r);
}

export async function examineCopy(
  ctx: AppContext,
  caller: Caller,
  file: string,
  opts: ExamineOptions = {},
): Promise<Examination & { sha256: string }> {
  const sha256 = opts.sha256 ?? (await sha256Of(file));
  let result: Examination;
  try {
    result = await identifyCopy(ctx, file, opts.videoId ? { videoId: opts.videoId } : {});
  } catch (err) {
    if (!(err instanceof FramesError)) throw err;
    result = { kind: 'unreadable', videoId: opts.videoId ?? null, bits: 0, reason: 'ffmpeg found no video it can decode in the file' };
  }
  const data: LeakCopyExaminedData = {
    sha256,
    videoId: result.videoId,
    outcome: result.kind,
    memberId: result.kind === 'identified' ? result.memberId : null,
    bits: result.bits,
    at: ctx.clock.now().toISOString(),
    examinationId: opts.examinationId ?? null,
    fileName: opts.fileName ?? null,
    distance: result.kind === 'identified' ? result.distance : null,
    bound: result.kind === 'identified' ? result.bound : null,
    stretch: result.kind === 'identified' || result.kind === 'no-match' ? result.stretch : null,
    neededSeconds: result.kind === 'too-short' ? result.neededSeconds : null,
    reason: result.kind === 'unreadable' ? result.reason : null,
  };
  await ctx.store.append(FORENSICS_STREAM, [{ type: LEAK_COPY_EXAMINED, data: { ...data } }], {
    expectedVersion: 'any',
    metadata: eventMetadata(ctx, caller),
  });
  return { ...result, sha256 };
}
