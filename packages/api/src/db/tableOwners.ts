/**
 * Which module owns each table: the one module whose SQL may name it. Another module reads what it
 * needs through the owner's read port (exported from the owner's index.ts), so a table can change
 * shape with its module alone. `pnpm lint` (scripts/check-table-owners.mjs) fails on a production
 * file whose SQL names a table its module does not own, and on a table missing here. The schema's
 * history (db/migrations/) creates every table and is exempt. A module is a top-level folder of
 * packages/api/src.
 */
export const TABLE_OWNERS = {
  // identity: accounts, sessions, second factors
  users: 'identity',
  password_resets: 'identity',
  staff_invitations: 'identity',
  staff_reads: 'identity',
  refresh_sessions: 'identity',
  refresh_tokens: 'identity',
  second_factors: 'identity',
  second_factor_secrets: 'identity',
  passkeys: 'identity',
  passkey_challenges: 'identity',
  // billing
  billing_payments: 'billing',
  billing_subscriptions: 'billing',
  billing_daily: 'billing',
  billing_plan_daily: 'billing',
  billing_membership_spans: 'billing',
  // catalog
  videos: 'catalog',
  video_captions: 'catalog',
  video_imports: 'catalog',
  video_labels: 'catalog',
  // streaming: per-video figures
  streaming_video_daily: 'streaming',
  // transcode
  transcode_jobs: 'transcode',
  transcode_runners: 'transcode',
  runner_tokens: 'transcode',
  video_keys: 'transcode',
  // uploads
  tus_uploads: 'uploads',
  // chat
  chat_conversations: 'chat',
  chat_messages: 'chat',
  chat_answers: 'chat',
  chat_presence: 'chat',
  chat_reply_mail: 'chat',
  chat_reply_mails: 'chat',
  chat_tickets: 'chat',
  // custom requests
  custom_requests: 'customRequests',
  live_shows: 'live',
  live_chat_messages: 'live',
  live_chat_mutes: 'live',
  // forensics
  leak_examinations: 'forensics',
  // mail
  mail_outbox: 'mail',
  // crypto-shredding (infrastructure, shredding/): the per-subject data keys
  data_keys: 'shredding',
  // the event store and its projections' bookkeeping
  events: 'eventstore',
  checkpoints: 'eventstore',
  projection_versions: 'eventstore',
  // the database layer itself
  schema_migrations: 'db',
  rate_limit_counters: 'db',
} as const;

export type OwnedTable = keyof typeof TABLE_OWNERS;
