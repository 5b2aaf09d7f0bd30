/**
 * The admin's examinations of leaked copies (docs/leak-tracing.md, the Leak tracing screen):
 * identification decodes the whole copy and compares it with the marked videos, seconds to minutes
 * of CPU, so a request only queues it. Each API process runs its own queue one copy at a time
 * (the copy sits on this process's disk), at most `MAX_WAITING` waiting; the job's state is a row
 * of `leak_examinations` (migration 016) so any process answers a poll, and its outcome is the
 * `LeakCopyExamined` event `examineCopy` appends, as for the CLI. A process that stops mid-way
 * leaves rows another start of it marks failed ("send the copy again").
 */
import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import type { leakExaminationRecordSchema, leakExaminationSchema, leakOutcomeSchema } from '@members/ui/api/schemas';
import type { z } from 'zod';
import { findUserById } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import type { Started } from '../kernel/module.js';
import type { Caller } from '../shared/eventMetadata.js';
import { processAlive } from '../shared/processAlive.js';
import { failure, type Result, success } from '../shared/result.js';
import { MEMBERS_BOUND } from './code.js';
import {
  describeExamination,
  type Examination,
  examineCopy,
  FORENSICS_STREAM,
  LEAK_COPY_EXAMINED,
  type LeakCopyExaminedData,
} from './identify.service.js';
import type { ReceivedCopy } from './receiveCopy.js';

/** Copies waiting behind the one being examined, per process; one more is a 503 `leak.queue_full`. */
export const MAX_WAITING = 4;
/** The list answers the newest examinations, this many at most. */
export const LIST_LIMIT = 100;

const PROCESS = `${os.hostname()}:${process.pid}`;
const INTERRUPTED = 'The server stopped before the examination finished: send the copy again';
const FAILED = 'The examination failed on the server (see its log): send the copy again';

interface Row {
  id: string;
  requested_by: string;
  file_name: string;
  size_bytes: number | string;
  sha256: string;
  video_id: string | null;
  status: LeakExamination['status'];
  failure: string | null;
  created_at: string;
  finished_at: string | null;
}

interface Job {
  id: string;
  path: string;
  copy: ReceivedCopy;
  caller: Caller;
}

interface Queue {
  waiting: Job[];
  current: Promise<void> | null;
  stopped: boolean;
}

type LeakExamination = z.infer<typeof leakExaminationSchema>;
type LeakOutcome = z.infer<typeof leakOutcomeSchema>;
type LeakExaminationRecord = z.infer<typeof leakExaminationRecordSchema>;

const queues = new WeakMap<AppContext, Queue>();

/** Rows a stopped process of this host left queued or running: failed, with why. */
async function sweepInterrupted(ctx: AppContext): Promise<number> {
  const rows = await ctx.db.all<{ id: string; process: string }>(
    `SELECT id, process FROM leak_examinations WHERE status IN ('queued', 'running')`,
  );
  const host = `${os.hostname()}:`;
  const gone = rows.filter((r) => {
    if (!r.process.startsWith(host)) return false;
    const pid = Number(r.process.slice(host.length));
    return pid !== process.pid && !(Number.isInteger(pid) && processAlive(pid));
  });
  const now = ctx.clock.now().toISOString();
  for (const r of gone)
    await ctx.db.run(`UPDATE leak_examinations SET status = 'failed', failure = ?, finished_at = ? WHERE id = ?`, [INTERRUPTED, now, r.id]);
  return gone.length;
}

/** Starts this process's queue (the forensics module's `start`): stopping it waits for the copy being examined. */
export async function startExaminations(ctx: AppContext): Promise<Started> {
  const swept = await sweepInterrupted(ctx);
  if (swept) ctx.logger.info({ swept }, 'leak examinations a stopped process left marked failed');
  const queue: Queue = { waiting: [], current: null, stopped: false };
  queues.set(ctx, queue);
  return {
    async stop() {
      queue.stopped = true;
      const left = queue.waiting.splice(0);
      const now = ctx.clock.now().toISOString();
      for (const job of left) {
        await fsp.rm(job.path, { force: true });
        await ctx.db
          .run(`UPDATE leak_examinations SET status = 'failed', failure = ?, finished_at = ? WHERE id = ?`, [INTERRUPTED, now, job.id])
          .catch(() => undefined);
      }
      await queue.current;
      queues.delete(ctx);
    },
  };
}

async function runJob(ctx: AppContext, job: Job): Promise<void> {
  try {
    await ctx.db.run(`UPDATE leak_examinations SET status = 'running' WHERE id = ?`, [job.id]);
    const r = await examineCopy(ctx, job.caller, job.path, {
      videoId: job.copy.videoId ?? undefined,
      examinationId: job.id,
      fileName: job.copy.fileName,
      sha256: job.copy.sha256,
    });
    // Gone from disk before anyone reads "done".
    await fsp.rm(job.path, { force: true });
    await ctx.db.run(`UPDATE leak_examinations SET status = ?, finished_at = ? WHERE id = ?`, [
      r.kind === 'unreadable' ? 'failed' : 'done',
      ctx.clock.now().toISOString(),
      job.id,
    ]);
  } catch (err) {
    ctx.logger.error({ err, examinationId: job.id }, 'leak examination failed');
    await ctx.db
      .run(`UPDATE leak_examinations SET status = 'failed', failure = ?, finished_at = ? WHERE id = ?`, [
        FAILED,
        ctx.clock.now().toISOString(),
        job.id,
      ])
      .catch(() => undefined);
  } finally {
    await fsp.rm(job.path, { force: true });
  }
}

function pump(ctx: AppContext, queue: Queue): void {
  if (queue.current || queue.stopped) return;
  const job = queue.waiting.shift();
  if (!job) return;
  queue.current = runJob(ctx, job).finally(() => {
    queue.current = null;
    pump(ctx, queue);
  });
}

/**
 * Queues a received copy (the file is the queue's from here: removed once examined or refused).
 * @example const r = await queueExamination(ctx, { actorId: admin.id }, received.copy); // r.value.status === 'queued'
 */
export async function queueExamination(ctx: AppContext, caller: Caller, copy: ReceivedCopy): Promise<Result<LeakExamination>> {
  const queue = queues.get(ctx);
  if (!queue || queue.stopped || queue.waiting.length >= MAX_WAITING) {
    await fsp.rm(copy.path, { force: true });
    return failure('leak.queue_full', `${MAX_WAITING + 1} copies are already being examined on this server: try again in a few minutes`);
  }
  const id = randomUUID();
  const now = ctx.clock.now().toISOString();
  await ctx.db.run(
    `INSERT INTO leak_examinations (id, requested_by, file_name, size_bytes, sha256, video_id, status, process, created_at)
     VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?)`,
    [id, caller.actorId ?? caller.actor ?? 'unknown', copy.fileName, copy.size, copy.sha256, copy.videoId, PROCESS, now],
  );
  // The answer is the row as queued: read before the queue may start on it.
  const view = await getExamination(ctx, id);
  queue.waiting.push({ id, path: copy.path, copy, caller });
  pump(ctx, queue);
  return view ? success(view) : failure('leak.examination_not_found', 'No such examination');
}

async function memberOf(ctx: AppContext, id: string) {
  const u = await findUserById(ctx.db, id);
  if (!u || u.erased_at) return { id, displayName: null, email: null };
  return { id, displayName: `${u.first_name} ${u.last_name}`.trim() || null, email: u.email };
}

/** The outcome an event records, with the member as they are now (an erased member has no name). */
async function outcomeOf(ctx: AppContext, d: LeakCopyExaminedData): Promise<LeakOutcome> {
  switch (d.outcome) {
    case 'identified':
      return {
        kind: 'identified',
        videoId: d.videoId ?? '',
        member: await memberOf(ctx, d.memberId ?? ''),
        bitsRead: d.bits,
        bitsDiffering: d.distance ?? 0,
        falseMatchBound: d.bound ?? 0,
        membersBound: MEMBERS_BOUND,
        stretch: d.stretch ?? { from: 0, to: 0 },
      };
    case 'too-short':
      return { kind: 'too-short', videoId: d.videoId, bitsRead: d.bits, neededSeconds: d.neededSeconds ?? 0 };
    case 'unreadable':
      return { kind: 'unreadable', reason: d.reason ?? 'ffmpeg found no video it can decode in the file' };
    default:
      return { kind: 'no-match', videoId: d.videoId, bitsRead: d.bits };
  }
}

/** The outcome as the CLI says it (one line), from the recorded outcome. */
function sentenceOf(o: LeakOutcome): string {
  const asExamination: Examination =
    o.kind === 'identified'
      ? {
          kind: 'identified',
          videoId: o.videoId,
          memberId: o.member.id,
          email: o.member.email,
          bits: o.bitsRead,
          distance: o.bitsDiffering,
          bound: o.falseMatchBound,
          stretch: o.stretch,
        }
      : o.kind === 'too-short'
        ? { kind: 'too-short', videoId: o.videoId, bits: o.bitsRead, neededSeconds: o.neededSeconds }
        : o.kind === 'unreadable'
          ? { kind: 'unreadable', videoId: null, bits: 0, reason: o.reason }
          : { kind: 'no-match', videoId: o.videoId, bits: o.bitsRead, stretch: null };
  return describeExamination(asExamination);
}

async function examinedEvents(ctx: AppContext) {
  return (await ctx.store.readStream(FORENSICS_STREAM)).filter((e) => e.type === LEAK_COPY_EXAMINED);
}

/** One examination, its state and (once done) its outcome; null when there is none by that id. */
export async function getExamination(ctx: AppContext, id: string): Promise<LeakExamination | null> {
  const row = await ctx.db.get<Row>('SELECT * FROM leak_examinations WHERE id = ?', [id]);
  if (!row) return null;
  let outcome: LeakOutcome | null = null;
  if (row.status === 'done' || row.status === 'failed') {
    const event = (await examinedEvents(ctx)).find((e) => (e.data as unknown as LeakCopyExaminedData).examinationId === id);
    if (event) outcome = await outcomeOf(ctx, event.data as unknown as LeakCopyExaminedData);
  }
  const summary = outcome
    ? sentenceOf(outcome)
    : row.status === 'failed'
      ? (row.failure ?? FAILED)
      : row.status === 'running'
        ? 'Examining the copy…'
        : 'Waiting to be examined…';
  return {
    id: row.id,
    status: row.status,
    fileName: row.file_name,
    sizeBytes: Number(row.size_bytes),
    sha256: row.sha256,
    videoId: row.video_id,
    requestedBy: row.requested_by,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    outcome,
    summary,
  };
}

/** Past examinations, newest first: every `LeakCopyExamined` event, the CLI's included. */
export async function listExaminations(ctx: AppContext): Promise<LeakExaminationRecord[]> {
  const events = (await examinedEvents(ctx)).reverse().slice(0, LIST_LIMIT);
  const actors = [...new Set(events.map((e) => e.metadata.actorId).filter((a): a is string => typeof a === 'string'))];
  const emails = new Map<string, string>();
  for (const id of actors) {
    const u = await findUserById(ctx.db, id);
    if (u && !u.erased_at) emails.set(id, u.email);
  }
  return events.map((e) => {
    const d = e.data as unknown as LeakCopyExaminedData;
    const actorId = typeof e.metadata.actorId === 'string' ? e.metadata.actorId : null;
    return {
      examinationId: d.examinationId ?? null,
      at: d.at ?? e.recordedAt,
      examinedBy: (actorId ? (emails.get(actorId) ?? actorId) : null) ?? String(e.metadata.actor ?? 'unknown'),
      sha256: d.sha256,
      fileName: d.fileName ?? null,
      videoId: d.videoId ?? null,
      outcome: d.outcome,
      memberId: d.memberId ?? null,
      bitsRead: d.bits ?? 0,
    };
  });
}
