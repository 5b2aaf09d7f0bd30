/**
 * `projections rebuild` gives every read model table back row for row, on both stores: on SQLite the
 * replay runs in place; on PostgreSQL it runs in a staging SQLite file whose tables are copied over
 * with `COPY … FROM STDIN` (text format), so text with quotes, accents, tabs, newlines and
 * backslashes, NULLs, numbers and JSON held in text columns must all come back as they were.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { billingTestKit, HASH, seedMember } from '../billing/billing.testkit.js';
import { makeMp4 } from '../media/media.testkit.js';
import { createTestUser } from '../streaming/viewers.testkit.js';
import { postUpload } from '../uploads/upload.testkit.js';
import { rebuildProjections } from './projections.js';

const fixtures = tmpDir('rebuild-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

forEachStore('projections rebuild', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => server?.close());

  it('gives every read model table back row for row', async () => {
    const kit = await billingTestKit(server);
    const paying = await seedMember(server);
    await seedMember(server, { approved: false });
    const submitted = await kit.submit(paying, { planType: 'monthly', btcAmount: '0.0005', transactionHash: HASH(771) });
    expect((await kit.verify(submitted.body.data.paymentId)).status).toBe(200);
    const waiting = await seedMember(server);
    await kit.submit(waiting, { planType: 'annual', btcAmount: '0.005' });
    const admin = await createTestUser(server.ctx, { role: 'admin' });
    const upload = await postUpload(
      server.url,
      admin.token,
      {
        title: "Rebuilt: “quotes”, 'apostrophes' & ünïcode",
        description: 'Line one\nline two\twith a tab, a back\\slash, \\N and a CR\r',
        tags: 'golden hour,b',
        accessLevel: 'premium',
      },
      { video: await makeMp4(fixtures, 2) },
    );
    expect(upload.status).toBe(201);

    const tables = server.ctx.projections.flatMap((p) => p.tables);
    // Rows in a stable order whatever the table's key: sorted by their own JSON. A counter group that
    // went back to zero keeps its row live and has none after a rebuild (both read as zero).
    const snapshot = async () => {
      const out: Record<string, string[]> = {};
      for (const t of tables) {
        const rows = await server.ctx.db.all<Record<string, unknown>>(`SELECT * FROM ${t}`);
        out[t] = rows
          .filter((r) => !t.endsWith('_counts') || Number(r.n) !== 0)
          .map((r) => JSON.stringify(r))
          .sort();
      }
      return out;
    };
    const before = await snapshot();
    for (const t of ['users', 'billing_payments', 'billing_subscriptions', 'videos', 'video_labels'])
      expect([t, before[t]?.length]).not.toEqual([t, 0]);
    await rebuildProjections(server.ctx.db, server.ctx.store, server.ctx.projections);
    expect(await snapshot()).toEqual(before);
  });
});
