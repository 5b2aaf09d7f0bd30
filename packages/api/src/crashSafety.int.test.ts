/**
 * Crash safety: the real server (main.ts in a child process) under 20 concurrent writers
 * (registrations, approvals, payment submissions, admin verifications, multipart video uploads) is
 * SIGKILLed mid-load, again and again, and restarted on the same store. After every kill: each
 * write that was answered 2xx is there, the hash chain verifies, the billing read models reconcile
 * with the events; after the restart, no staged upload is left in media/incoming, every stored video
 * has its files and no folder is left without a video, and the server serves.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ChildServer, killHard, launchServer, stopServer } from '../test/childServer.js';
import { type FreshStore, forEachStore, freshStore, testEnv, tmpDir } from '../test/harness.js';
import { exampleSiteConfig } from '../test/siteConfig.js';
import { type Acked, ackedCount, loginAdmin, missingWrites, newAcked, startLoad } from '../test/writers.js';
import { reconcile } from './audit/reconcile.js';
import { verifyChain } from './audit/verifyChain.js';
import { closeContext, createContext } from './kernel/context.js';
import { makeMp4 } from './media/media.testkit.js';
import { allProjections } from './wiring/modules.js';

const KILLS = 5;
/** Acknowledged writes to wait for in a round (and at least one upload and one verification) before the kill. */
const WRITES_BEFORE_KILL = 30;

const clipDir = tmpDir('members-crash-clip-');
let clip: string;

beforeAll(async () => {
  clip = await makeMp4(clipDir, 1);
});
afterAll(() => fs.rmSync(clipDir, { recursive: true, force: true }));

function filesUnder(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

async function waitFor(cond: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!cond() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

/** The store's checks, run while the server is down (after the kill, before the restart). */
async function checkStore(store: FreshStore, acked: Acked): Promise<{ head: number; recorded: Set<string> }> {
  const ctx = await createContext(testEnv(store.env), exampleSiteConfig(), allProjections());
  try {
    expect(await missingWrites(ctx.db, acked)).toEqual([]);
    const chain = await verifyChain(ctx.rawStore);
    expect(chain).toMatchObject({ ok: true });
    const report = await reconcile(ctx.db, ctx.store);
    expect(report.differences).toEqual([]);
    expect(report.ok).toBe(true);
    const rows = await ctx.db.all<{ id: string }>('SELECT id FROM videos');
    return { head: chain.ok ? chain.headPosition : 0, recorded: new Set(rows.map((r) => r.id)) };
  } finally {
    await closeContext(ctx);
  }
}

/** After the restart's sweep: nothing staged, every recorded video has its files, no folder without a video. */
function checkMedia(store: FreshStore, recorded: Set<string>): void {
  expect(filesUnder(path.join(store.dataDir, 'media', 'incoming'))).toEqual([]);
  const folders = filesUnder(path.join(store.dataDir, 'media', 'videos'));
  expect(folders.filter((f) => !recorded.has(f))).toEqual([]);
  for (const id of recorded) expect(filesUnder(path.join(store.dataDir, 'media', 'videos', id))).toHaveLength(2);
}

forEachStore('crash safety under load', (kind) => {
  it(`survives ${KILLS} SIGKILLs mid-load with every acknowledged write intact`, async () => {
    const store = await freshStore(kind);
    const acked = newAcked();
    const problems: string[] = [];
    let stagedLeft = 0;
    let server: ChildServer | undefined;
    try {
      server = await launchServer(store.env);
      const admin = await loginAdmin(server.url);
      const plans = (await (await fetch(`${server.url}/api/subscriptions/plans`)).json()) as {
        data: { plans: { planType: string; btcAmount: string }[] };
      };
      const monthlyBtc = plans.data.plans.find((p) => p.planType === 'monthly')?.btcAmount as string;

      for (let kill = 1; kill <= KILLS; kill++) {
        const before = { all: ackedCount(acked), videos: acked.videos.size, verified: acked.verified.size };
        const load = startLoad({ url: server.url, adminToken: admin, clip, acked, monthlyBtc });
        await waitFor(
          () =>
            ackedCount(acked) >= before.all + WRITES_BEFORE_KILL &&
            acked.videos.size > before.videos &&
            acked.verified.size > before.verified,
          30_000,
        );
        await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 150)));
        await killHard(server);
        await load.done;
        problems.push(...load.problems);
        stagedLeft += filesUnder(path.join(store.dataDir, 'media', 'incoming')).length;

        const { head, recorded } = await checkStore(store, acked);
        server = await launchServer(store.env);
        // The start-up sweep ran before the server listened.
        checkMedia(store, recorded);
        // It serves: a catalog read and a write.
        expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
        expect((await fetch(`${server.url}/api/videos`)).status).toBe(200);
        console.log(`[${kind}] kill ${kill}: ${ackedCount(acked)} acknowledged writes intact, head ${head}`);
      }
      await stopServer(server);
      // No answer other than 2xx or a lost connection: a 5xx under load would be a bug.
      expect(problems.filter((p) => / → 5\d\d /.test(p))).toEqual([]);
      console.log(
        `[${kind}] ${KILLS} kills survived; acknowledged: ${acked.users.size} users, ${acked.approved.size} approvals, ` +
          `${acked.payments.size} payments, ${acked.verified.size} verifications, ${acked.videos.size} videos; ` +
          `${stagedLeft} staged upload files left by the kills and swept at restart; ${problems.length} non-2xx answers`,
      );
      expect(acked.videos.size).toBeGreaterThan(0);
      expect(acked.verified.size).toBeGreaterThan(0);
    } finally {
      if (server && server.child.exitCode === null && server.child.signalCode === null) await killHard(server);
      await store.cleanup();
    }
  }, 180_000);
});
