/**
 * The server's environment, parsed once by zod at start. A wrong value stops the process with a
 * message naming the variable. Dev defaults are printed as such by `main.ts`.
 */
import path from 'node:path';
import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const intFrom = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  EVENTSTORE_URL: z.string().optional(),
  /** Ed25519 private key (PEM, or base64 of PKCS#8 DER or of the raw 32 bytes) for `audit checkpoint`. */
  AUDIT_SIGNING_KEY: z.string().optional(),
  ADMIN_EMAIL: z.string().email().optional(),
  ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Encrypts second-factor (TOTP) secrets at rest; required in production, a generated dev default otherwise. */
  MFA_KEY_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Master key wrapping the per-member data keys (crypto-shredding); required in production, a generated dev default otherwise. */
  DATA_KEY_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** The previous DATA_KEY_SECRET while `pnpm cli keys rotate` re-wraps the data keys. */
  DATA_KEY_SECRET_PREVIOUS: z.string().min(32, 'must be at least 32 characters').optional(),
  /** The test suites' password-hash cost (identity/passwords.ts): `minimum` is ignored unless NODE_ENV=test. */
  PASSWORD_HASH_COST: z.enum(['owasp', 'minimum']).default('owasp'),
  /** Admins must enrol a second factor before anything else (default: true when NODE_ENV=production). */
  REQUIRE_ADMIN_2FA: bool.optional(),
  /** A production site on a Bitcoin test network (a staging site): refused unless set (billing/moneyTraps.ts). */
  ALLOW_TEST_NETWORK: bool.default(false),
  /** The operator's Bitcoin node (JSON-RPC, e.g. http://user:pass@127.0.0.1:8332): payments are checked against the chain (billing/chain). */
  BITCOIN_RPC_URL: z
    .string()
    .regex(/^https?:\/\//, 'must be an http:// or https:// URL')
    .optional(),
  /** Bitcoin Core's cookie file (`~/.bitcoin/.cookie`): the RPC credentials, instead of a user and password in BITCOIN_RPC_URL. */
  BITCOIN_RPC_COOKIE_FILE: z.string().min(1).optional(),
  /** How often the leader asks the node for new blocks and the mempool. */
  BITCOIN_POLL_SECONDS: z.coerce.number().min(0.1).max(60).default(5),
  PUBLIC_URL: z.string().url().optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Members <no-reply@localhost>'),
  /** `smtp` (needs SMTP_URL) or `outbox` (.eml files under DATA_DIR/outbox, for testing); unset: smtp when SMTP_URL is set. */
  MAIL_TRANSPORT: z.enum(['smtp', 'outbox']).optional(),
  /** Mails an anonymous or not-yet-approved caller can cause, per recipient address and per account, per hour (mail/limits). */
  MAILS_PER_RECIPIENT_PER_HOUR: intFrom(5, 1),
  MAILS_PER_ACCOUNT_PER_HOUR: intFrom(10, 1),
  /** How long after the team's first unread reply a member who stayed offline gets one mail (chat/replyMail.ts). */
  CHAT_MAIL_DELAY_SECONDS: intFrom(300, 1),
  /** At most this many of those mails per member per 24 hours (0: none at all). */
  CHAT_MAILS_PER_MEMBER_PER_DAY: intFrom(3, 0),
  SITE_CONFIG: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `auto`: readable lines in a terminal outside production, JSON lines otherwise (pipes, files, log shippers). */
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  TRUST_PROXY: bool.default(false),
  /**
   * Rate limits (identity/limits.ts): failed logins per account per window over every address (the
   * ceiling before the account itself waits); per (account, client address) the free failures before
   * exponential backoff, and its longest wait; auth requests per IP per minute.
   */
  LOGIN_FAILURES_PER_ACCOUNT: intFrom(100, 1),
  LOGIN_FAILURE_WINDOW_MINUTES: intFrom(60, 1),
  LOGIN_FAILURES_PER_ADDRESS: intFrom(5, 1),
  LOGIN_BACKOFF_MAX_MINUTES: z.coerce.number().int().min(1).max(1440).default(15),
  AUTH_REQUESTS_PER_IP_PER_MINUTE: intFrom(60, 1),
  ACCESS_TOKEN_TTL_SECONDS: intFrom(900, 10),
  REFRESH_TOKEN_TTL_DAYS: intFrom(30, 1),
  /** A session ends this many days after sign-in however often it refreshes (issue 42, ASVS 3.3.2). */
  SESSION_ABSOLUTE_DAYS: intFrom(30, 1),
  /** An admin's (staff) session ends after this many minutes without a refresh (identity/sessions.ts). */
  STAFF_SESSION_IDLE_MINUTES: intFrom(30, 1),
  /**
   * A refresh token presented again within this many seconds of its first use gets a new token in the
   * same session instead of ending it: the client lost the answer of the first refresh (a reload
   * while it was in flight, two tabs refreshing at once). Later reuse is treated as theft. 0 = none.
   */
  REFRESH_REUSE_INTERVAL_SECONDS: intFrom(10, 0),
  MAX_UPLOAD_BYTES: intFrom(4 * 1024 ** 3, 1),
  STREAM_URL_TTL_SECONDS: intFrom(7200, 1),
  GRACE_PERIOD_DAYS: intFrom(3, 0),
  SHUTDOWN_TIMEOUT_MS: intFrom(10_000, 100),
  WEB_DIST: z.string().optional(),
  /** Prometheus /metrics: a listener of its own (no token) and/or a bearer token on the main port. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** `nginx`: the media route checks access, then answers `X-Accel-Redirect` and nginx sends the file. */
  MEDIA_ACCEL: z.enum(['none', 'nginx']).default('none'),
  /**
   * Live shows (issue 43, live/): the embedded RTMP ingest listens on this port in the process that is
   * the ingest host; `0` = no ingest in this process (the other API processes behind nginx).
   */
  LIVE_RTMP_PORT: z.coerce.number().int().min(0).max(65535).default(1935),
  LIVE_RTMP_HOST: z.string().min(1).default('0.0.0.0'),
  /** What the admin is told to put in OBS's "Server" field; default `rtmp://{PUBLIC_URL's host}:{LIVE_RTMP_PORT}/live`. */
  LIVE_INGEST_URL: z
    .string()
    .regex(/^rtmps?:\/\/[^\s]+$/, 'must be an rtmp:// or rtmps:// URL')
    .optional(),
  /**
   * The shared secret nginx-rtmp's `on_publish` sends (deploy/nginx-rtmp.conf) when it asks the API
   * whether a publish may go on (POST /api/live/ingest/publish?secret=…); unset = that route refuses
   * every call (no nginx-rtmp in front: OBS publishes to LIVE_RTMP_PORT itself).
   */
  LIVE_PUBLISH_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters')
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _ only (it goes in the on_publish URL as it is)')
    .optional(),
  /** The nginx `internal` location the media files are aliased under (with MEDIA_ACCEL=nginx). */
  MEDIA_ACCEL_PREFIX: z
    .string()
    .regex(/^\/[A-Za-z0-9_/-]*\/$/, 'must be a path starting and ending with /')
    .default('/_protected_media/'),
  /**
   * Where media lives: `local` (DATA_DIR/media, the default) or `s3://BUCKET[/PREFIX]` for
   * S3-compatible object storage (docs/media-storage.md). The endpoint, region and credentials come
   * from the AWS SDK's standard variables below.
   */
  MEDIA_STORE: z
    .string()
    .regex(
      /^(local|s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/(?!\.\.?(\/|$))[A-Za-z0-9._-]+)*\/?)$/,
      'must be local or s3://BUCKET[/PREFIX] (a bucket name of 3-63 lower-case letters, digits, dots or dashes)',
    )
    .default('local'),
  /** The S3 endpoint (an S3-compatible server: Ceph RGW, MinIO, …); AWS's own when unset. */
  AWS_ENDPOINT_URL_S3: z.string().url().optional(),
  /** The endpoint for every AWS service, used when AWS_ENDPOINT_URL_S3 is unset. */
  AWS_ENDPOINT_URL: z.string().url().optional(),
  AWS_REGION: z.string().min(1).optional(),
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Path-style bucket addressing (`endpoint/bucket/key`); default: on when the endpoint is an IP address or localhost. */
  S3_FORCE_PATH_STYLE: bool.optional(),
  /** Names this process in an `X-Served-By` response header (several processes behind nginx). */
  INSTANCE_ID: z
    .string()
    .regex(/^[\w.-]{1,64}$/, 'must be 1-64 letters, digits, dots, dashes or underscores')
    .optional(),
  /** How often the leader runs the subscription lifecycle pass. */
  LIFECYCLE_INTERVAL_SECONDS: intFrom(60, 1),
  /** How often the leader publishes the scheduled videos whose time has come (ms; tests shorten it; at most a minute). */
  RELEASES_TICK_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  /** HLS transcodes the leader's in-process runner runs at once (0: none in the server; jobs wait in the queue). A token runner takes `--concurrency`. */
  TRANSCODE_CONCURRENCY: intFrom(1, 0),
  /** `false`: API processes never transcode; token runners (`pnpm cli transcode-runner --server URL`) do (docs/transcode-runners.md). */
  TRANSCODE_IN_SERVER: bool.default(true),
  /** A claimed transcode job's lease: renewed every third of it; a runner silent for this long loses the job to another. */
  TRANSCODE_LEASE_SECONDS: intFrom(30, 2),
  /** x264 preset of the HLS ladder (`ultrafast` … `veryslow`): speed against size at the same quality. */
  TRANSCODE_PRESET: z
    .enum(['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium', 'slow', 'slower', 'veryslow'])
    .default('veryfast'),
  /** Leak tracing: every rendition transcoded in A/B variants spelling each member's code in their playlists (docs/leak-tracing.md). */
  FORENSIC_WATERMARK: bool.default(false),
  /** The largest leaked copy an admin may upload to be examined (POST /api/admin/leaks/examinations; 413 beyond it). */
  LEAK_COPY_MAX_BYTES: intFrom(2 * 1024 ** 3, 1),
  /** The ffmpeg and ffprobe binaries (media/ffmpeg.ts reads them; default: Debian's /usr/bin, then the npm static builds). */
  FFMPEG_PATH: z.string().min(1).optional(),
  FFPROBE_PATH: z.string().min(1).optional(),
});

export type Env = z.infer<typeof envSchema> & { DATA_DIR: string; REQUIRE_ADMIN_2FA: boolean };

export class ConfigError extends Error {}

export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  // Empty strings mean "unset" (docker-compose and shells often pass VAR=).
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const requireAdmin2fa = parsed.data.REQUIRE_ADMIN_2FA ?? parsed.data.NODE_ENV === 'production';
  return { ...parsed.data, DATA_DIR: path.resolve(parsed.data.DATA_DIR), REQUIRE_ADMIN_2FA: requireAdmin2fa };
}

/**
 * Production sends real mail: `SMTP_URL`, or `MAIL_TRANSPORT=outbox` said out loud (a test
 * deployment). Without either, reset and verification links would only land in files on the server.
 * Called at start (main.ts); `MAIL_TRANSPORT=smtp` without `SMTP_URL` is refused everywhere.
 */
export function checkMailTransport(env: Pick<Env, 'NODE_ENV' | 'SMTP_URL' | 'MAIL_TRANSPORT'>): void {
  if (env.MAIL_TRANSPORT === 'smtp' && !env.SMTP_URL) throw new ConfigError('MAIL_TRANSPORT=smtp needs SMTP_URL (smtp:// or smtps://)');
  if (env.NODE_ENV !== 'production' || env.SMTP_URL || env.MAIL_TRANSPORT === 'outbox') return;
  throw new ConfigError(
    'SMTP_URL must be set when NODE_ENV=production (e.g. smtp://user:password@mail.example.com:587), ' +
      'or MAIL_TRANSPORT=outbox to write mails as files under DATA_DIR/outbox instead (for testing only: nothing is delivered)',
  );
}
