/**
 * Leak tracing's answers (docs/leak-tracing.md): an admin uploads a leaked copy, the server examines
 * it in the background and names the member whose stream it was made from, or says why not.
 */
import { z } from 'zod';

export const LEAK_EXAMINATION_STATUSES = ['queued', 'running', 'done', 'failed'] as const;

/** What an examination found: a named member, no match, too short a copy, or an unreadable file. */
export const leakOutcomeSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('identified'),
    videoId: z.string(),
    member: z.object({
      id: z.string(),
      /** null: the member has been erased since (their name and e-mail are gone). */
      displayName: z.string().nullable(),
      email: z.string().nullable(),
    }),
    /** Segments read clearly (one bit each) and how many of them differ from the member's code. */
    bitsRead: z.number().int(),
    bitsDiffering: z.number().int(),
    /** The bound on this being a false match, over `membersBound` members. */
    falseMatchBound: z.number(),
    membersBound: z.number().int(),
    /** The stretch of the video the bits were read from, seconds. */
    stretch: z.object({ from: z.number(), to: z.number() }),
  }),
  z.object({ kind: z.literal('no-match'), videoId: z.string().nullable(), bitsRead: z.number().int() }),
  z.object({
    kind: z.literal('too-short'),
    videoId: z.string().nullable(),
    bitsRead: z.number().int(),
    neededSeconds: z.number(),
  }),
  z.object({ kind: z.literal('unreadable'), reason: z.string() }),
]);

export const leakExaminationSchema = z.object({
  id: z.string(),
  status: z.enum(LEAK_EXAMINATION_STATUSES),
  /** The name the file was uploaded with (shown only; the server stores the bytes under its own name). */
  fileName: z.string(),
  sizeBytes: z.number().int(),
  sha256: z.string(),
  /** The video the admin said the copy is from, or null to find it by comparing with every marked video. */
  videoId: z.string().nullable(),
  requestedBy: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  /** Set when `status` is `done` (or `failed` with an unreadable file). */
  outcome: leakOutcomeSchema.nullable(),
  /** The outcome (or the state) in one plain sentence. */
  summary: z.string(),
});

/** POST /admin/leaks/examinations: the examination waiting in the queue. */
export const leakExaminationQueuedSchema = leakExaminationSchema;

/** One past examination, from the `LeakCopyExamined` events (the CLI's included). */
export const leakExaminationRecordSchema = z.object({
  /** null for an examination run with `pnpm cli watermark identify`. */
  examinationId: z.string().nullable(),
  at: z.string(),
  /** Who asked: the admin's e-mail (or id when erased), or the CLI's OS user. */
  examinedBy: z.string(),
  sha256: z.string(),
  fileName: z.string().nullable(),
  videoId: z.string().nullable(),
  outcome: z.enum(['identified', 'no-match', 'too-short', 'unreadable']),
  memberId: z.string().nullable(),
  bitsRead: z.number().int(),
});

export const leakExaminationsAnswerSchema = z.object({
  /** Whether this server marks streams (`FORENSIC_WATERMARK`): examining a copy needs it. */
  enabled: z.boolean(),
  /** The largest copy accepted, bytes (`LEAK_COPY_MAX_BYTES`). */
  maxBytes: z.number().int(),
  /** Newest first, 100 at most. */
  examinations: z.array(leakExaminationRecordSchema),
});
