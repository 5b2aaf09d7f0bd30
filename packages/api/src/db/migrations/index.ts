/**
 * Every schema migration, in order. To add one: write `NNN_name.ts` exporting a `Migration` with the
 * next id and SQL for both dialects, and append it here. It runs at the next start (or with
 * `pnpm cli migrate`) in one transaction. Read-model tables never need one: bump the projection's
 * `version` instead and it is dropped, recreated and rebuilt from the log.
 */
import { initial } from './001_initial.js';
import { dropUploadSessions } from './002_drop_upload_sessions.js';
import { rateLimitCounters } from './003_rate_limit_counters.js';
import { secondFactorSecrets } from './004_second_factor_secrets.js';
import { dataKeys } from './005_data_keys.js';
import { sessionDevices } from './006_session_devices.js';
import { transcodeJobs } from './007_transcode_jobs.js';
import { transcodeLeases } from './008_transcode_leases.js';
import { mailSubject } from './009_mail_subject.js';
import { tusUploads } from './010_tus_uploads.js';
import { tusUploadOwner } from './011_tus_upload_owner.js';
import { chatTickets } from './012_chat_tickets.js';
import { runnerTokens } from './013_runner_tokens.js';
import { chatTicketSession } from './014_chat_ticket_session.js';
import { chatReplyMails } from './015_chat_reply_mails.js';
import { leakExaminations } from './016_leak_examinations.js';
import { passkeyChallenges } from './017_passkey_challenges.js';
import type { Migration } from './types.js';

export type { Migration } from './types.js';

export const migrations: readonly Migration[] = [
  initial,
  dropUploadSessions,
  rateLimitCounters,
  secondFactorSecrets,
  dataKeys,
  sessionDevices,
  transcodeJobs,
  transcodeLeases,
  mailSubject,
  tusUploads,
  tusUploadOwner,
  chatTickets,
  runnerTokens,
  chatTicketSession,
  chatReplyMails,
  leakExaminations,
  passkeyChallenges,
];
