/**
 * "Download my data" holds every personal field the site sealed about the member: the check reads
 * every event whose envelope names the member as its subject (registration, a chat message, a
 * custom request and its refusal, a payment), opens it as every reader does, and looks for each
 * sealed value (shredding/personalData.ts decides what is sealed; the password hash is never
 * exported) in the export. A module that seals a new personal field and leaves it out of the export
 * (docs/contributing.md's worked example: a custom request's `note`) fails here; the check itself is
 * shown failing on an export with one field taken out. Each module gives its own sections
 * (AppModule.exportPersonalData); the export refuses a section that no module, or two, give.
 */
import { memberExportSchema } from '@members/ui/api/schemas';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { billingTestKit, HASH, seedMember } from '../billing/billing.testkit.js';
import { scheduleShow, startShow } from '../live/shows.service.js';
import { isPersonalField } from '../shredding/personalData.js';
import { modules } from '../wiring/modules.js';
import { exportMemberData } from './export.service.js';

/** Each sealed value about `subjectId` that `exported` does not hold, as `EventType.field`. */
async function missingFromExport(
  server: TestServer,
  subjectId: string,
  exported: unknown,
): Promise<{ checked: string[]; missing: string[] }> {
  const text = JSON.stringify(exported);
  const sealed = new Set(
    (await server.ctx.rawStore.readAll())
      .filter((e) => (e.data as { personal?: { subject?: string } }).personal?.subject === subjectId)
      .map((e) => e.position),
  );
  const checked: string[] = [];
  const missing: string[] = [];
  for (const e of await server.ctx.store.readAll()) {
    if (!sealed.has(e.position)) continue;
    for (const [field, value] of Object.entries(e.data as Record<string, unknown>)) {
      if (!isPersonalField(e.type, field) || field === 'passwordHash' || typeof value !== 'string' || value === '') continue;
      checked.push(`${e.type}.${field}`);
      if (!text.includes(JSON.stringify(value).slice(1, -1))) missing.push(`${e.type}.${field}`);
    }
  }
  return { checked, missing };
}

forEachStore('the data export and what the site sealed about the member', (kind) => {
  let server: TestServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { NODE_ENV: 'production', REQUIRE_ADMIN_2FA: 'false' } });
    kit = await billingTestKit(server);
  }, 120_000);
  afterAll(async () => server?.close());

  it('holds every sealed personal field of the member’s events; taking one out is caught', async () => {
    const member = await seedMember(server);
    const paid = await kit.submit(member, { planType: 'annual', btcAmount: '0.005', transactionHash: HASH(31_337) });
    expect(paid.status).toBe(201);
    expect((await kit.verify(paid.body.data.paymentId)).status).toBe(200);
    const tag = Date.now().toString(36);
    expect((await kit.api.post('/chat/messages', { text: `Hello from ${tag}` }, member.token)).status).toBe(201);
    const asked = await kit.api.post('/custom-requests', { description: `A video by the lake ${tag}` }, member.token);
    expect(asked.status).toBe(201);
    const declined = await kit.api.post(
      `/admin/custom-requests/${asked.body.data.request.id}/decline`,
      { reason: `Not this season ${tag}` },
      kit.admin,
    );
    expect(declined.status).toBe(200);
    // A message in a live show's chat room (issue 43), the show started as the ingest starts it.
    const show = await scheduleShow(
      server.ctx,
      { title: 'Export live', accessLevel: 'premium', startsAt: '2026-12-03T20:00:00Z', saveReplay: false },
      { actorId: 'test-admin' },
    );
    if (!show.ok) throw new Error(show.error.message);
    const ladder = [{ name: '240p', width: 426, height: 240, bandwidth: 500_000 }];
    expect((await startShow(server.ctx, show.value.show.id, show.value.streamKey, ladder)).ok).toBe(true);
    const posted = await kit.api.post(`/live/shows/${show.value.show.id}/chat`, { text: `Live hello ${tag}` }, member.token);
    expect(posted.status).toBe(201);
    await server.subscribers.drain();

    const exported = await kit.api.get('/users/me/export', member.token);
    expect(exported.status).toBe(200);
    const { checked, missing } = await missingFromExport(server, member.id, exported.body);
    console.log(`[export] sealed values checked: ${checked.join(', ')}`);
    // The check saw what the member did: it is not vacuous.
    expect(checked).toEqual(
      expect.arrayContaining([
        'UserRegistered.email',
        'UserRegistered.firstName',
        'ChatMessageSent.text',
        'CustomRequestSubmitted.description',
        'CustomRequestDeclined.reason',
        'ShowChatMessagePosted.text',
      ]),
    );
    expect(missing).toEqual([]);

    // A module that left a sealed field out of the export: the request's description taken out.
    const planted = JSON.parse(JSON.stringify(exported.body).replaceAll(`A video by the lake ${tag}`, '(left out)'));
    expect((await missingFromExport(server, member.id, planted)).missing).toEqual(['CustomRequestSubmitted.description']);
  }, 120_000);

  it('is made of every module’s part: a section no module gives, or two modules give, is refused', async () => {
    const member = await seedMember(server);
    const whole = await exportMemberData(server.ctx, modules, member.id);
    expect(whole.ok && Object.keys(whole.value)).toEqual(Object.keys(memberExportSchema.shape));
    const withoutViews = modules.filter((m) => m.name !== 'privacy');
    await expect(exportMemberData(server.ctx, withoutViews, member.id)).rejects.toThrow('missing views, watchTime, unknown none');
    const twice = [...modules, { name: 'planted', exportPersonalData: async () => ({ views: [] }) }];
    await expect(exportMemberData(server.ctx, twice, member.id)).rejects.toThrow('section views comes from both privacy and planted');
  }, 60_000);
});
