/**
 * An identification request, from the CLI or an admin: the copy examined, then one
 * `LeakCopyExamined` event on the `forensics` stream saying who asked, the file's SHA-256 and
 * the outcome (the member's id only when named), so every look at a leak is on the record.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { AppContext } from '../context.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { type Identification, identifyCopy } from './identify.js';

export const FORENSICS_STREAM = 'forensics';
export const LEAK_COPY_EXAMINED = 'LeakCopyExamined';

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function examineCopy(
  ctx: AppContext,
  caller: Caller,
  file: string,
  opts: { videoId?: string } = {},
): Promise<Identification & { sha256: string }> {
  const sha256 = await sha256Of(file);
  const result = await identifyCopy(ctx, file, opts);
  await ctx.store.append(
    FORENSICS_STREAM,
    [
      {
        type: LEAK_COPY_EXAMINED,
        data: {
          sha256,
          videoId: result.videoId,
          outcome: result.kind,
          memberId: result.kind === 'identified' ? result.memberId : null,
          bits: result.bits,
          at: ctx.clock.now().toISOString(),
        },
      },
    ],
    { expectedVersion: 'any', metadata: eventMetadata(ctx, caller) },
  );
  return { ...result, sha256 };
}
