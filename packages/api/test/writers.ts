/**
 * Concurrent writers against a live server over real HTTP: members registering, being approved,
 * requesting and submitting payments that the admin verifies, and the admin uploading videos
 * (multipart `/api/admin/upload-video`). Every write answered 2xx is remembered in `acked`, so a
 * suite can check after a crash or a restore that each one is still there.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { sign } from 'hono/jwt';
import type { Queryable } from '../src/db/types.js';
import { CHILD_TOKEN_SECRET } from './childServer.js';
import { TEST_ADMIN } from './harness.js';

export interface Acked {
  users: Set<string>;
  approved: Set<string>;
  payments: Map<string, string>;
  /** paymentId → userId of payments the admin's verification was answered 2xx for. */
  verified: Map<string, string>;
  videos: Set<string>;
}

export const newAcked = (): Acked => ({
  users: new Set(),
  approved: new Set(),
  payments: new Map(),
  verified: new Map(),
  videos: new Set(),
});

export const ackedCount = (a: Acked) => a.users.size + a.approved.size + a.payments.size + a.verified.size + a.videos.size;

const memberToken = (id: string) => {
  const iat = Math.floor(Date.now() / 1000);
  return sign({ sub: id, role: 'member', typ: 'access', iat, exp: iat + 3600 }, CHILD_TOKEN_SECRET, 'HS256');
};

export async function loginAdmin(url: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(TEST_ADMIN),
  });
  const body = (await res.json()) as { data?: { token: string } };
  if (!body.data?.token) throw new Error(`admin login answered ${res.status}`);
  return body.data.token;
}

/** A request with no answer by then counts as lost (as when the server died under it). */
const REQUEST_TIMEOUT_MS = 20_000;

/** A 2xx answer's data, null for another answer; throws only when no answer came (server gone). */
async function call(url: string, method: string, p: string, token: string, body?: unknown, problems?: string[]): Promise<any> {
  const res = await fetch(`${url}/api${p}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  if (res.status >= 200 && res.status < 300) return JSON.parse(text).data;
  problems?.push(`${method} ${p} → ${res.status} ${text.slice(0, 200)}`);
  return null;
}

export interface LoadOptions {
  url: string;
  adminToken: string;
  clip: string;
  acked: Acked;
  /** 20 by default: `uploaders` of them upload videos, the others run the member flow. */
  writers?: number;
  uploaders?: number;
  monthlyBtc: string;
}

export interface RunningLoad {
  /** Answers that were neither 2xx nor a lost connection (a 5xx here is a bug). */
  problems: string[];
  /** Stops the writers after their current request; resolves when all have returned. */
  stop(): Promise<void>;
  /** Resolves when every writer has stopped (after `stop()` or once the server is gone). */
  done: Promise<void>;
}

/** Starts the writers; each stops at its first request that gets no answer (the server died). */
export function startLoad(o: LoadOptions): RunningLoad {
  let running = true;
  const problems: string[] = [];
  const admin = o.adminToken;
  const tag = randomBytes(3).toString('hex');
  let n = 0;

  async function memberWriter(): Promise<void> {
    while (running) {
      const email = `w-${tag}-${++n}@example.test`;
      const reg = await call(
        o.url,
        'POST',
        '/auth/register',
        '',
        { email, password: 'writer-password-1', firstName: 'Load', lastName: 'Writer', dateOfBirth: '1990-01-01', agreeToTerms: true },
        problems,
      );
      const id = reg?.user?.id as string | undefined;
      if (!id) continue;
      o.acked.users.add(id);
      if (!running) return;
      if (!(await call(o.url, 'POST', `/admin/users/${id}/approve`, admin, undefined, problems))) continue;
      o.acked.approved.add(id);
      if (!running) return;
      const token = await memberToken(id);
      if (!(await call(o.url, 'POST', '/payments/create-subscription-intent', token, { planType: 'monthly' }, problems))) continue;
      const submitted = await call(
        o.url,
        'POST',
        '/payments/submit-bitcoin-payment',
        token,
        { userId: id, planType: 'monthly', btcAmount: o.monthlyBtc, transactionHash: randomBytes(32).toString('hex') },
        problems,
      );
      const paymentId = submitted?.paymentId as string | undefined;
      if (!paymentId) continue;
      o.acked.payments.set(paymentId, id);
      if (!running) return;
      if (await call(o.url, 'POST', `/admin/payments/${paymentId}/verify`, admin, undefined, problems)) o.acked.verified.set(paymentId, id);
    }
  }

  async function uploader(): Promise<void> {
    while (running) {
      const form = new FormData();
      form.append('title', `Load clip ${tag}-${++n}`);
      form.append('description', 'uploaded under load');
      form.append('accessLevel', 'premium');
      form.append('video', await fs.openAsBlob(o.clip, { type: 'video/mp4' }), 'clip.mp4');
      const res = await fetch(`${o.url}/api/admin/upload-video`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${admin}` },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await res.text();
      const videoId = res.status === 201 ? (JSON.parse(text).data?.videoId as string | undefined) : undefined;
      if (videoId) o.acked.videos.add(videoId);
      else problems.push(`upload → ${res.status} ${text.slice(0, 200)}`);
    }
  }

  const total = o.writers ?? 20;
  const uploaders = o.uploaders ?? 4;
  const writers = Array.from({ length: total }, (_, i) => (i < uploaders ? uploader() : memberWriter()).catch(() => undefined));
  const done = Promise.all(writers).then(() => {
    running = false;
  });
  return {
    problems,
    done,
    async stop() {
      running = false;
      await done;
    },
  };
}

/** What of `acked` is missing from the store's read models (empty when every acknowledged write is there). */
export async function missingWrites(db: Queryable, acked: Acked): Promise<string[]> {
  const missing: string[] = [];
  for (const id of acked.users) {
    const u = await db.get<{ status: string }>('SELECT status FROM users WHERE id = ?', [id]);
    if (!u) missing.push(`user ${id}`);
    else if (acked.approved.has(id) && u.status !== 'approved') missing.push(`approval of ${id} (status ${u.status})`);
  }
  for (const [paymentId, userId] of acked.payments) {
    const p = await db.get<{ status: string; user_id: string }>('SELECT status, user_id FROM billing_payments WHERE id = ?', [paymentId]);
    if (!p || p.user_id !== userId) missing.push(`payment ${paymentId}`);
    else if (acked.verified.has(paymentId) && p.status !== 'verified') missing.push(`verification of ${paymentId} (status ${p.status})`);
  }
  for (const [paymentId, userId] of acked.verified) {
    const s = await db.get<{ status: string; last_payment_id: string }>(
      'SELECT status, last_payment_id FROM billing_subscriptions WHERE user_id = ?',
      [userId],
    );
    if (s?.status !== 'active' || s.last_payment_id !== paymentId) missing.push(`subscription of ${userId} by ${paymentId}`);
  }
  for (const id of acked.videos) {
    if (!(await db.get('SELECT id FROM videos WHERE id = ?', [id]))) missing.push(`video ${id}`);
  }
  return missing;
}
