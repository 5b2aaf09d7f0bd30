/**
 * The creator's team in Chromium against the real server (issue 42): the owner invites a support
 * member from the Team section of /admin, the invitee opens the mailed link, chooses a name and a
 * password and signs in; /admin then shows support its column only (the chat inbox and the custom
 * requests, no approval queue, payments, uploads, figures or team) and never bounces to /blocked.
 * The owner changes the role to finance on the Team section: the next visit shows the payments and
 * the figures, and no chat. The owner sees the staff member by name, with the reads recorded.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailsTo, startTestServer, TEST_ADMIN, type TestServer } from '../../api/test/support';
import { ageVerifiedContext, ensureBuilt, launchChromium, signIn, WEB_DIST } from './browser';

const T = 15_000;
let server: TestServer;
let browser: Browser;

/** Whether a card titled or a table captioned `name` is on the page. */
const shows = async (page: Page, name: string) =>
  (await page.getByRole('heading', { name, exact: true }).count()) + (await page.locator('caption', { hasText: name }).count()) > 0;

async function dashboardOf(page: Page): Promise<Record<string, boolean>> {
  await page.waitForURL(`${server.url}/admin`, { timeout: T });
  await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor({ timeout: T });
  await page.waitForLoadState('networkidle');
  const out: Record<string, boolean> = {};
  for (const name of [
    'Member chat',
    'Custom requests',
    'Pending User Approvals',
    'Pending Payment Verifications',
    'Upload New Video',
    'Team',
    'Analytics',
  ])
    out[name] = await shows(page, name);
  return out;
}

describe('staff roles on the web admin in Chromium', () => {
  beforeAll(async () => {
    ensureBuilt();
    server = await startTestServer('sqlite', { env: { WEB_DIST } });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('an invited support member sees chat and requests only; as finance, payments and figures only', async () => {
    const email = 'sam.support@example.test';
    const owner = await (await ageVerifiedContext(browser)).newPage();
    await signIn(owner, server.url, TEST_ADMIN.email, TEST_ADMIN.password);
    expect(await dashboardOf(owner)).toMatchObject({ Team: true, 'Pending Payment Verifications': true, 'Member chat': true });
    await owner.getByLabel('Invite by email').fill(email);
    await owner.getByLabel('Role', { exact: true }).selectOption('support');
    await owner.getByRole('button', { name: 'Send Invitation' }).click();
    await owner.getByText(`Invitation sent to ${email} as Support.`).waitFor({ timeout: T });

    const mail = (await mailsTo(server, email)).find((m) => m.key.startsWith('staff-invitation:'));
    const link = /(\/auth\/staff-invitation\?token=\S+)/.exec(mail?.text_body ?? '')?.[1];
    expect(link).toBeDefined();

    const staffContext = await ageVerifiedContext(browser);
    const staff = await staffContext.newPage();
    await staff.goto(`${server.url}${link}`);
    await staff.getByLabel('Your name (shown to the team)').fill('Sam Support');
    await staff.getByLabel('Password', { exact: true }).fill('support-password-1');
    await staff.getByLabel('Confirm Password').fill('support-password-1');
    await staff.getByRole('button', { name: 'Join the Team' }).click();
    await staff.getByText('Your staff account is ready. You can now log in.').waitFor({ timeout: T });

    await signIn(staff, server.url, email, 'support-password-1');
    expect(await dashboardOf(staff)).toEqual({
      'Member chat': true,
      'Custom requests': true,
      'Pending User Approvals': false,
      'Pending Payment Verifications': false,
      'Upload New Video': false,
      Team: false,
      Analytics: false,
    });
    await staff.getByText('Signed in as Sam Support (Support)').waitFor({ timeout: T });
    // Live shows are for the `videos` permission (owner, editor): no link for support, one for the owner.
    expect(await staff.getByRole('link', { name: 'Live shows' }).count()).toBe(0);
    expect(await owner.getByRole('link', { name: 'Live shows' }).count()).toBe(1);

    // The owner makes them finance on the Team section; their next visit shows finance's column.
    await owner.reload();
    await owner.getByLabel('Role of Sam Support').waitFor({ timeout: T });
    await owner.getByLabel('Role of Sam Support').selectOption('finance');
    await owner.getByText('Sam Support is now Finance.').waitFor({ timeout: T });
    await staff.reload();
    expect(await dashboardOf(staff)).toEqual({
      'Member chat': false,
      'Custom requests': false,
      'Pending User Approvals': false,
      'Pending Payment Verifications': true,
      'Upload New Video': false,
      Team: false,
      Analytics: true,
    });
    expect(staff.url()).toBe(`${server.url}/admin`);
    await staffContext.close();
  }, 120_000);
});
