import { z } from 'zod';

/**
 * The runner API (`/api/runners/…`, docs/transcode-runners.md): what a `pnpm cli transcode-runner
 * --server URL` process sends and gets, authenticated by its runner token only. A claim is
 * `(videoId, claimAttempt)` of the runner's own id; `attempt` is the transcode attempt its events carry.
 */

/** The runner's own id (`host:pid:random`); the server prefixes it with the token's name. */
export const runnerIdSchema = z.string().regex(/^[A-Za-z0-9._:-]{1,100}$/, 'letters, digits, ".", "_", ":" and "-", at most 100');

const claimRef = { runnerId: runnerIdSchema, claimAttempt: z.number().int().min(1) };
const attemptRef = { ...claimRef, attempt: z.number().int().min(1) };

export const runnerClaimBodySchema = z.object({ runnerId: runnerIdSchema });

export const runnerRenditionSchema = z.object({
  name: z.string().regex(/^\d{3,4}p$/),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  videoKbps: z.number().int().positive(),
  audioKbps: z.number().int().nonnegative(),
});

/** A claimed job: everything the runner needs, and nothing else of the site. */
export const runnerJobSchema = z.object({
  videoId: z.string(),
  claimAttempt: z.number().int(),
  attempt: z.number().int(),
  /** A short-lived URL of the original (presigned on S3, a signed route of this server on the local store; relative to the server then). */
  sourceUrl: z.string(),
  renditions: z.array(runnerRenditionSchema),
  hasAudio: z.boolean(),
  durationSeconds: z.number(),
  preset: z.string(),
  /** The video's AES-128 segment key and IV (hex): the runner encrypts the segments it writes. */
  key: z.object({ key: z.string(), iv: z.string() }),
  leaseSeconds: z.number(),
  /**
   * The site marks its ladders (FORENSIC_WATERMARK): every rendition in A and B variants, the
   * video's id choosing the pattern (api/src/transcode/watermarkVariants.ts). Absent: no mark.
   */
  watermark: z.boolean().optional(),
});

export const runnerClaimSchema = z.object({ job: runnerJobSchema.nullable() });

export const runnerHeartbeatBodySchema = z.object({
  runnerId: runnerIdSchema,
  concurrency: z.number().int().min(1).max(64),
  startedAt: z.string().max(40),
  jobs: z.array(z.object({ videoId: z.string().max(64), claimAttempt: z.number().int().min(1) })).max(64),
});
export const runnerHeartbeatSchema = z.object({
  tokenName: z.string(),
  leaseSeconds: z.number(),
  /** Jobs of `jobs` this runner no longer holds: stop them, publish nothing. */
  lost: z.array(z.string()),
});

export const runnerProgressBodySchema = z.object({ ...attemptRef, percent: z.number().min(0).max(100) });
export const runnerReleaseBodySchema = z.object(claimRef);
export const runnerStopBodySchema = z.object({ runnerId: runnerIdSchema });

/** Paths inside the video's `hls/` folder (`master.m3u8`, `720p/seg_00003.ts`…). */
export const runnerUploadsBodySchema = z.object({ ...claimRef, files: z.array(z.string().max(64)).min(1).max(20_000) });
export const runnerUploadsSchema = z.object({
  uploads: z.array(z.object({ path: z.string(), url: z.string(), headers: z.record(z.string(), z.string()) })),
  expiresAt: z.string(),
});

const renditionInfoSchema = z.object({
  name: z.string().regex(/^\d{3,4}p$/),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  bandwidth: z.number().int().positive(),
  codecs: z.string().max(200),
  progressive: z.boolean().optional(),
});
const previewInfoSchema = z.object({
  interval: z.number().positive(),
  count: z.number().int().nonnegative(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  columns: z.number().int().positive(),
  rows: z.number().int().positive(),
});

export const runnerCompleteBodySchema = z.object({
  ...attemptRef,
  files: z.array(z.string().max(64)).min(1).max(20_000),
  renditions: z.array(renditionInfoSchema).min(1).max(16),
  previews: previewInfoSchema.nullable(),
  totalBytes: z.number().int().nonnegative(),
  ffmpegSeconds: z.number().nonnegative(),
});
export const runnerFailBodySchema = z.object({ ...attemptRef, error: z.string().max(20_000) });

export const runnerJobAnswerSchema = z.object({ videoId: z.string(), state: z.enum(['running', 'done', 'failed', 'queued']) });
export const runnerStoppedSchema = z.object({ stopped: z.boolean() });

/** A runner as the health answer and the admin's runner list show it. */
export const runnerStatusSchema = z.object({
  id: z.string(),
  /**
   * `server`: an API leader's in-process runner; `runner`: a token runner. A `runner` without a
   * `tokenName` was left by the removed full-context runner (forgotten 15 minutes after its last heartbeat).
   */
  kind: z.enum(['server', 'runner']),
  /** The runner token it came with (`pnpm cli runners token create`); null for an API leader's in-server runner. */
  tokenName: z.string().nullable(),
  concurrency: z.number().int(),
  startedAt: z.string(),
  heartbeatAt: z.string(),
  heartbeatAgeSeconds: z.number(),
  jobs: z.number().int(),
});

/** GET /api/admin/runners: the runner tokens and the runners heard from (last 15 minutes). */
export const adminRunnersSchema = z.object({
  tokens: z.array(
    z.object({
      name: z.string(),
      createdAt: z.string(),
      /** The last request a runner made with it (its last contact). */
      lastUsedAt: z.string().nullable(),
      revokedAt: z.string().nullable(),
    }),
  ),
  runners: z.array(runnerStatusSchema),
});

/** `POST /api/admin/runners/tokens`: the name a new runner token goes by (as `pnpm cli runners token create NAME`). */
export const runnerTokenCreateSchema = z.object({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'letters, digits, ".", "_" and "-", at most 63, starting with a letter or digit'),
});

/** The new token, shown once: only its hash is stored. */
export const runnerTokenCreatedSchema = z.object({ name: z.string(), token: z.string() });

export const runnerTokenParamsSchema = runnerTokenCreateSchema;

/** `DELETE /api/admin/runners/tokens/{name}`: when it was revoked (its runners stop at their next call). */
export const runnerTokenRevokedSchema = z.object({ name: z.string(), revokedAt: z.string() });
