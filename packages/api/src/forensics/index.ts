/**
 * Leak tracing (docs/leak-tracing.md): the A/B forensic mark the transcoder puts in every
 * segment (pattern.ts), each member's code that spells itself in their playlists (code.ts), and
 * reading a leaked copy back to a member (detect.ts, identify.ts), from the CLI or the admin's
 * Leak tracing screen (routes.ts: copies examined in the background, examinations.ts).
 */
import type { AppModule } from '../kernel/module.js';
import { startExaminations } from './examinations.js';
import { forensicsRoutes } from './routes.js';

export { allowedErrors, codeBits, falseMatchBound, minimumBits } from './code.js';
export { FRAME_HEIGHT, FRAME_WIDTH, referenceRate } from './detect.js';
export { frameRateOf, grayFrames } from './frames.js';
export { describeIdentification, type Identification, identifyCopy } from './identify.js';
export { describeExamination, type Examination, examineCopy, FORENSICS_STREAM, LEAK_COPY_EXAMINED } from './identify.service.js';
export { liveCodeSecrets, memberVariants } from './memberCodes.js';
export { MARK_AMPLITUDE, MARKED_SEGMENT_SECONDS, patternExpression, patternShape } from './pattern.js';

export const forensicsModule: AppModule = {
  name: 'forensics',
  start: (ctx) => startExaminations(ctx),
  routes: forensicsRoutes,
};
