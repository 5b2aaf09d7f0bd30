/**
 * What each variable of the environment schema (env.ts) means, for the operator's manual:
 * `scripts/docs-figures.mjs` writes docs/configuration.md's table from the schema (names, defaults)
 * and these texts, and `pnpm lint` fails when a variable of the schema has no entry here or the table
 * is stale. `default` overrides the schema's own default where that is computed (dev defaults).
 */

export interface EnvVarDoc {
  /** Shown instead of the schema's default (e.g. a dev default generated at start). */
  default?: string;
  /** Markdown, relative links from docs/. */
  meaning: string;
}

export const envDocs: Record<string, EnvVarDoc> = {
  NODE_ENV: {
    meaning:
      '`production` requires the secrets below, turns on `REQUIRE_ADMIN_2FA` and closes `/api/docs` to non-admins; `development` fills dev defaults and says so',
  },
  PORT: { meaning: 'HTTP port (API under `/api`, web app at `/`)' },
  HOST: { meaning: 'bind address' },
  DATA_DIR: { meaning: 'embedded event store (`store.sqlite`), media files, dev mail outbox, dev-default secrets' },
  DATABASE_URL: { meaning: 'a `postgres://` URL switches the event store and read models to PostgreSQL' },
  EVENTSTORE_URL: {
    meaning:
      "a `kurrentdb://` URL for the KurrentDB adapter's contract suite (tests only; the CLI takes such URLs with `--store`, see [KurrentDB](kurrentdb.md))",
  },
  AUDIT_SIGNING_KEY: {
    meaning:
      'Ed25519 private key (PEM, base64 PKCS#8 DER, or base64 of the raw 32-byte seed) for signed checkpoints (`pnpm cli audit checkpoint`, `GET /api/admin/audit/checkpoint`; see [Audit](audit.md#signed-checkpoints-optional))',
  },
  ADMIN_EMAIL: {
    default: 'dev: `admin@localhost`',
    meaning: 'the bootstrapped admin (the spec\'s "admin account address")',
  },
  ADMIN_PASSWORD: {
    default: 'dev: generated, printed once',
    meaning: "the bootstrapped admin's password (≥ 8 characters)",
  },
  TOKEN_SECRET: {
    default: 'dev: generated into `DATA_DIR/dev-token-secret`',
    meaning: 'HMAC key for access tokens and stream URLs (≥ 32 chars; required when `NODE_ENV=production`)',
  },
  MFA_KEY_SECRET: {
    default: 'dev: generated into `DATA_DIR/dev-mfa-key-secret`',
    meaning: 'key (via HKDF) encrypting second-factor secrets at rest (≥ 32 chars; required when `NODE_ENV=production`)',
  },
  DATA_KEY_SECRET: {
    default: 'dev: generated into `DATA_DIR/dev-data-key-secret`',
    meaning:
      "master key (via HKDF) wrapping every member's data key (crypto-shredding, see [Privacy](privacy.md#keys); ≥ 32 chars; required when `NODE_ENV=production`)",
  },
  DATA_KEY_SECRET_PREVIOUS: {
    meaning: 'the old `DATA_KEY_SECRET` during a master-key rotation (`pnpm cli keys rotate`)',
  },
  ALLOW_TEST_NETWORK: {
    default: '`false`',
    meaning:
      'with `NODE_ENV=production`, lets the site start on a Bitcoin test network (site config `bitcoin.network: testnet`), for a staging site; without it production refuses any network but mainnet (see [Billing](billing.md#settings-production-refuses))',
  },
  BITCOIN_RPC_URL: {
    meaning:
      "the operator's own Bitcoin node's JSON-RPC (`http://user:pass@127.0.0.1:8332`; Bitcoin Core with `txindex=1`): every open payment is checked against the chain and the admin's pending list shows the evidence; without it nothing is checked (chain status `unchecked`). See [Billing](billing.md#checking-payments-against-the-chain)",
  },
  BITCOIN_RPC_COOKIE_FILE: {
    meaning:
      "Bitcoin Core's cookie file (e.g. `~/.bitcoin/.cookie`), read at each call, instead of a user and password in `BITCOIN_RPC_URL`",
  },
  BITCOIN_POLL_SECONDS: {
    meaning:
      'how often the leader asks the node for new blocks and the mempool (a block shows in the pending list within this and one check)',
  },
  REQUIRE_ADMIN_2FA: {
    default: '`true` when `NODE_ENV=production`, else `false`',
    meaning: 'admins must enrol a second factor before any other API call (see [Security](security.md#two-factor-authentication-totp))',
  },
  PUBLIC_URL: {
    default: 'dev: `http://localhost:PORT`; **required** when `NODE_ENV=production`',
    meaning:
      "the site's address (e.g. `https://videos.example.com`): mailed links, the cookies' `Secure` flag and the same-origin check come from it, never from the request's `Host` or `X-Forwarded-Host`; an https URL also turns on HSTS",
  },
  SMTP_URL: {
    meaning:
      'the mail server (`smtp://` or `smtps://`); **required when `NODE_ENV=production`** unless `MAIL_TRANSPORT=outbox`. Without it (development, tests), mails are written as `.eml` files to `DATA_DIR/outbox` (mode 0600) and their outbox key is logged',
  },
  MAIL_TRANSPORT: {
    default: '`smtp` when `SMTP_URL` is set, else `outbox`',
    meaning:
      '`outbox` writes every mail as an `.eml` file under `DATA_DIR/outbox` instead of sending it: **for testing only** (nothing is delivered; production starts with it only when it is set explicitly); `smtp` needs `SMTP_URL`',
  },
  MAILS_PER_RECIPIENT_PER_HOUR: {
    meaning:
      'mails with a link that anyone can cause (sign-up, verification, password reset, "someone tried to register with your address", the link to a new address) per recipient address per hour; beyond it nothing is sent and the API answers the same (see [Security](security.md#mail-limits))',
  },
  MAILS_PER_ACCOUNT_PER_HOUR: {
    meaning: 'the same mails per account per hour, and, in a budget of their own, the security notices to the holder',
  },
  MAIL_FROM: { meaning: 'sender of every mail' },
  CHAT_MAIL_DELAY_SECONDS: {
    meaning:
      'a member who has not read a reply of the team this long after it, and was not online meanwhile, gets one discreet mail ("You have a new reply"), then none until they read (see [Members\' chat](chat.md#mail-when-the-team-replies))',
  },
  CHAT_MAILS_PER_MEMBER_PER_DAY: {
    meaning: 'at most this many of those mails per member in 24 hours; `0` sends none',
  },
  SITE_CONFIG: {
    default: '`site.config.json`, else `site.config.example.json`',
    meaning: 'brand values (see [Site config file](configuration.md#site-config-file))',
  },
  LOG_LEVEL: { meaning: 'pino level' },
  LOG_FORMAT: {
    meaning:
      '`pretty`: one readable line per entry (pino-pretty); `json`: one JSON object per line; `auto`: pretty when stdout is a terminal and `NODE_ENV` is not `production`, JSON otherwise (pipes, files, log shippers)',
  },
  TRUST_PROXY: { meaning: 'honour `X-Forwarded-For` for the client IP (geo check, rate limits)' },
  LOGIN_FAILURES_PER_ACCOUNT: {
    meaning:
      'the ceiling: failed logins for one account from every address together per window before the account itself waits (429 with `Retry-After`); in memory on the embedded store, shared by every process on PostgreSQL (see [Security](security.md#login-throttling))',
  },
  LOGIN_FAILURE_WINDOW_MINUTES: { meaning: 'the window of `LOGIN_FAILURES_PER_ACCOUNT`' },
  LOGIN_FAILURES_PER_ADDRESS: {
    meaning:
      'failed logins for one account from one client address (IPv6: its /64) before that address waits: 1 s, doubling with each further failure; forgotten after a day without one or at a successful login',
  },
  LOGIN_BACKOFF_MAX_MINUTES: { meaning: 'the longest wait of that backoff (1–1440)' },
  AUTH_REQUESTS_PER_IP_PER_MINUTE: { meaning: 'auth requests per client IP per minute before 429' },
  ACCESS_TOKEN_TTL_SECONDS: { meaning: 'lifetime of an access token' },
  REFRESH_TOKEN_TTL_DAYS: { meaning: 'lifetime of a refresh session' },
  SESSION_ABSOLUTE_DAYS: {
    meaning: 'a session ends this many days after sign-in however often it refreshes; its access tokens are refused from then on',
  },
  STAFF_SESSION_IDLE_MINUTES: {
    meaning:
      "an admin's session ends after this many minutes without a refresh (a session in use refreshes at least every `ACCESS_TOKEN_TTL_SECONDS`; an access token already issued lasts out its own lifetime)",
  },
  REFRESH_REUSE_INTERVAL_SECONDS: {
    meaning:
      'a rotated refresh token presented again this soon gets a new token instead of ending the session (a reload during a refresh); `0` = none',
  },
  MAX_UPLOAD_BYTES: { meaning: 'upload size limit (413 beyond it)' },
  STREAM_URL_TTL_SECONDS: { meaning: 'lifetime of signed stream URLs' },
  GRACE_PERIOD_DAYS: { meaning: '`past_due` grace before a subscription becomes `unpaid`' },
  SHUTDOWN_TIMEOUT_MS: {
    meaning: 'on SIGTERM/SIGINT, how long requests in flight may finish before the remaining connections are closed',
  },
  WEB_DIST: { default: '`packages/web/dist`', meaning: 'the built web app the server serves at `/`' },
  LIVE_RTMP_PORT: {
    meaning: 'the embedded RTMP ingest of live shows (OBS publishes here, [Live shows](live.md)); `0` = no ingest in this process',
  },
  LIVE_RTMP_HOST: { meaning: 'bind address of the RTMP ingest' },
  LIVE_INGEST_URL: {
    default: '`rtmp://{PUBLIC_URL host}:{LIVE_RTMP_PORT}/live`',
    meaning: 'the RTMP server URL an admin is shown for OBS ("Server"; the stream key goes in "Stream Key")',
  },
  LIVE_PUBLISH_SECRET: {
    meaning:
      "with Debian's nginx-rtmp in front of the ingest: the shared secret its `on_publish` sends (≥ 32 letters, digits, `-` or `_`; [Live shows](live.md#nginx-rtmp-in-front)); unset = the publish check refuses every call",
  },
  METRICS_PORT: {
    meaning: 'a separate listener for Prometheus `GET /metrics` (no token; see [Metrics](operations.md#metrics))',
  },
  METRICS_HOST: { meaning: 'bind address of the `METRICS_PORT` listener' },
  METRICS_TOKEN: {
    meaning: 'serve `GET /metrics` on the main port to `Authorization: Bearer <token>` only (≥ 16 chars)',
  },
  MEDIA_STORE: {
    meaning:
      '`local` keeps media under `DATA_DIR/media`; `s3://BUCKET[/PREFIX]` puts originals, HLS ladders, sprites and thumbnails in an S3-compatible object store, checked at start (see [Media storage](media-storage.md))',
  },
  AWS_ENDPOINT_URL_S3: {
    default: 'unset (AWS S3)',
    meaning:
      "the object store's endpoint with `MEDIA_STORE=s3://…` (Ceph RGW, MinIO, any S3-compatible service), the AWS SDK's own variable",
  },
  AWS_ENDPOINT_URL: { default: 'unset', meaning: 'the endpoint when `AWS_ENDPOINT_URL_S3` is not set (AWS SDK)' },
  AWS_REGION: { meaning: "the object store's region (AWS SDK)" },
  AWS_ACCESS_KEY_ID: {
    default: "unset (the SDK's default credential chain)",
    meaning: "the object store's access key (AWS SDK); refused credentials stop the server at start naming this variable",
  },
  AWS_SECRET_ACCESS_KEY: { default: "unset (the SDK's default credential chain)", meaning: "the object store's secret key (AWS SDK)" },
  S3_FORCE_PATH_STYLE: {
    default: 'on for an IP address or `localhost` endpoint, else off',
    meaning: '`true`: path-style addressing (`endpoint/bucket/key`) instead of virtual-hosted buckets',
  },
  MEDIA_ACCEL: {
    meaning:
      '`nginx`: the media route decides, nginx sends the bytes, from the media directory or, with `MEDIA_STORE=s3://…`, from the object store (see [Deployment](deployment.md), [Media storage](media-storage.md#nginx-in-front-media-bytes-without-node))',
  },
  MEDIA_ACCEL_PREFIX: { meaning: 'the nginx `internal` location the media files are aliased under (with `MEDIA_ACCEL=nginx`)' },
  INSTANCE_ID: { meaning: 'names the process in an `X-Served-By` response header' },
  LIFECYCLE_INTERVAL_SECONDS: { meaning: 'how often the leader runs the subscription lifecycle pass' },
  RELEASES_TICK_MS: {
    meaning:
      'how often (milliseconds, 100 to 60000: a release within a minute) the leader publishes the scheduled videos whose `publishAt` has come (see [Scheduled releases](videos.md#scheduled-releases-and-early-access-by-plan))',
  },
  TRANSCODE_CONCURRENCY: {
    meaning:
      "HLS transcodes run at once by the leader's in-process runner (a token runner, `pnpm cli transcode-runner --server URL`, takes `--concurrency` instead); `0`: none, uploads wait in the queue (see [Media pipeline](videos.md#media-pipeline-hls-renditions-encrypted-segments-entitlement-per-plan))",
  },
  TRANSCODE_IN_SERVER: {
    meaning:
      '`false` stops API processes from transcoding: only token runners (`pnpm cli transcode-runner --server URL`, holding a `RUNNER_TOKEN` and nothing else) take jobs (see [Transcode runners](transcode-runners.md)); `true` keeps the leader transcoding, as the embedded default needs',
  },
  TRANSCODE_LEASE_SECONDS: {
    meaning:
      'how long a claimed transcode job stays with its runner without a renewal (renewed every third of it); a runner that dies loses its job to another after this (see [Transcode runners](transcode-runners.md#leases-what-happens-when-a-runner-dies))',
  },
  TRANSCODE_PRESET: { meaning: 'x264 preset of the HLS ladder (`ultrafast` … `veryslow`): speed against size at the same quality' },
  FORENSIC_WATERMARK: {
    meaning:
      "Leak tracing: every rendition transcoded twice (A/B, 1 s segments) so each member's playlist spells their code; about twice the transcode CPU and segment storage, no progressive files (docs/leak-tracing.md)",
  },
  LEAK_COPY_MAX_BYTES: {
    meaning:
      'the largest leaked copy an admin may upload to the Leak tracing screen (`POST /api/admin/leaks/examinations`): streamed to a temporary file, refused with 413 `leak.file_too_large` beyond it (docs/leak-tracing.md)',
  },
  FFMPEG_PATH: {
    default: '`/usr/bin/ffmpeg`, else the `@ffmpeg-installer` static build',
    meaning:
      'the ffmpeg binary for thumbnails, previews and HLS transcodes (server, CLI and runners; an unset or missing path falls back to the default); see [Videos](videos.md)',
  },
  PASSWORD_HASH_COST: {
    meaning:
      "`owasp`: argon2id at OWASP's minimum (19 MiB, 2 passes). `minimum` is the test suites' (argon2id's floor, 1 ms a hash instead of 20) and is ignored unless `NODE_ENV=test` (a production or development server always hashes at the OWASP cost)",
  },
  FFPROBE_PATH: {
    default: '`/usr/bin/ffprobe`, else the `@ffprobe-installer` static build',
    meaning: 'the ffprobe binary that reads duration, size and codecs of every upload (same fallback as `FFMPEG_PATH`)',
  },
};
