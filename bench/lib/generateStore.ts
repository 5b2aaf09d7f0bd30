/**
 * A realistic event log, generated fast: members registering (2% still pending), approvals,
 * payments (40% of members; 1% of those still waiting for verification), subscriptions, a small
 * catalogue and views, appended through the store API with every inline projection running, many
 * streams per transaction (`appendBatch`), never through HTTP. The mix follows the 1M-event store of
 * issue 16 (312,000 members, 2% pending, 40% paying, 1% of payments waiting).
 */
import { periodEnd } from '../../packages/api/src/billing/plans.js';
import type { Db } from '../../packages/api/src/db/types.js';
import { inlineProjector, migrateProjections } from '../../packages/api/src/eventstore/projections.js';
import { type BatchAppend, createSqlEventStore, type SqlEventStore } from '../../packages/api/src/eventstore/sqlEventStore.js';
import { modules } from '../../packages/api/src/wiring/modules.js';

export const projections = modules.flatMap((m) => m.projections ?? []);
export const VIDEOS = 24;
/** The checkpointed subscribers (identity's and billing's mail, the transcode queue). */
const SUBSCRIBERS = ['identity-mail', 'billing-mail', 'transcode-queue'];
export const videoId = (i: number) => `bench-video-${i}`;
export const memberEmail = (i: number) => `member${i}@bench.test`;

/** History starts 200 days ago, so every (annual) subscription is still running when the server starts: no renewals or lapses for the scheduler to append mid-measurement. */
const T0 = Math.floor(Date.now() / 86_400_000 - 200) * 86_400_000;
const hex64 = (n: number) => n.toString(16).padStart(64, '0');

function videoEvents(i: number, at: string): BatchAppend {
  const id = videoId(i);
  return {
    streamId: `video-${id}`,
    options: { expectedVersion: 'no_stream', metadata: { actorId: 'bench-admin', at } },
    events: [
      {
        type: 'VideoUploaded',
        data: {
          videoId: id,
          title: `Bench video ${i}`,
          description: 'A generated video for the benchmarks',
          modelName: null,
          accessLevel: i % 3 === 0 ? 'free' : 'premium',
          tags: ['bench'],
          categories: ['bench'],
          durationSeconds: 60,
          typedDuration: null,
          video: {
            key: `${id}.mp4`,
            size: 1_000_000,
            mimeType: 'video/mp4',
            container: 'mp4',
            codec: 'h264',
            audioCodec: null,
            width: 1280,
            height: 720,
          },
          thumbnail: { key: `${id}.jpg`, mimeType: 'image/jpeg', extracted: true },
          uploadedBy: 'bench-admin',
          uploadedAt: at,
        },
      },
      { type: 'VideoPublished', data: { videoId: id, publishedBy: 'bench-admin', publishedAt: at } },
    ],
  };
}

/** Member `i`'s history: about 3.7 events on average. */
function memberHistory(i: number): BatchAppend[] {
  const t = T0 + i * 60_000;
  const at = (min: number) => new Date(t + min * 60_000).toISOString();
  const userId = `bm${i}`;
  const meta = (min: number, actorId: string | null = userId) => ({ actorId, at: at(min) });
  const out: BatchAppend[] = [];
  const pending = i % 50 === 7;
  out.push({
    streamId: `user-${userId}`,
    options: { expectedVersion: 'no_stream', metadata: meta(0, null) },
    events: [
      {
        type: 'UserRegistered',
        data: {
          userId,
          email: memberEmail(i),
          firstName: 'Bench',
          lastName: `Member ${i}`,
          dateOfBirth: '1990-01-01',
          passwordHash: 'x',
          role: 'member',
          registeredAt: at(0),
        },
      },
      ...(pending ? [] : [{ type: 'UserApproved', data: { userId, approvedBy: 'bench-admin', approvedAt: at(1) } }]),
    ],
  });
  if (pending) return out;
  if (i % 5 < 2) {
    const planType = 'annual';
    const amountSats = 500_000;
    const paymentId = `bp${i}`;
    const pay = { paymentId, userId, planType, amountSats };
    const waiting = i % 100 === 1;
    out.push({
      streamId: `payment-${paymentId}`,
      options: { expectedVersion: 'no_stream', metadata: meta(2) },
      events: [
        { type: 'PaymentSubmitted', data: { ...pay, userEmail: memberEmail(i), address: null, txHash: hex64(i + 1), submittedAt: at(2) } },
        ...(waiting
          ? []
          : [{ type: 'PaymentVerified', data: { ...pay, txHash: hex64(i + 1), verifiedBy: 'bench-admin', verifiedAt: at(3) } }]),
      ],
    });
    if (!waiting) {
      out.push({
        streamId: `subscription-${userId}`,
        options: { expectedVersion: 'no_stream', metadata: meta(3, 'bench-admin') },
        events: [
          {
            type: 'SubscriptionActivated',
            data: {
              subscriptionId: `bs${i}`,
              userId,
              planType,
              periodStart: at(3),
              periodEnd: periodEnd(at(3), planType),
              paymentId,
              amountSats,
              activatedAt: at(3),
            },
          },
        ],
      });
    }
  }
  if (i % 2 === 0) {
    const v = videoId(i % VIDEOS);
    out.push({
      streamId: `video-views-${v}-${userId}`,
      options: { expectedVersion: 'no_stream', metadata: meta(5) },
      events: [{ type: 'ViewRecorded', data: { videoId: v, userId, watchedSeconds: 42, viewedAt: at(5) } }],
    });
  }
  return out;
}

export interface Generated {
  events: number;
  members: number;
  ms: number;
}

/**
 * Appends members until the log holds at least `events` events (the catalogue first), `perTx`
 * members per transaction. `db` must be empty; the projections' tables are created first.
 */
export async function generateStore(
  db: Db,
  events: number,
  opts: { perTx?: number; onProgress?: (events: number) => void } = {},
): Promise<Generated> {
  const started = performance.now();
  await migrateProjections(db, projections);
  const store: SqlEventStore = await createSqlEventStore(db, { project: inlineProjector(projections) });
  const at = new Date(T0 - 86_400_000).toISOString();
  let head = await store.appendBatch(Array.from({ length: VIDEOS }, (_, i) => videoEvents(i, at)));
  let members = 0;
  const perTx = opts.perTx ?? 200;
  let lastReport = 0;
  while (head < events) {
    const batch: BatchAppend[] = [];
    for (let k = 0; k < perTx; k++) batch.push(...memberHistory(members++));
    head = await store.appendBatch(batch);
    if (opts.onProgress && head - lastReport >= 100_000) {
      lastReport = head;
      opts.onProgress(head);
    }
  }
  // A store in service has its subscribers caught up: the mails of this history went out long ago.
  for (const name of SUBSCRIBERS)
    await db.run('INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position', [
      name,
      head,
    ]);
  await store.close();
  return { events: head, members, ms: performance.now() - started };
}
