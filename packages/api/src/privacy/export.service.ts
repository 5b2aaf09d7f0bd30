/**
 * "Download my data" (GDPR articles 15 and 20): everything the site stores about a member, as one
 * JSON document and a readable HTML rendering of the same content. Each module gives the sections it
 * owns (`AppModule.exportPersonalData`: identity the profile, account history, second factor and
 * sessions; billing the payments and subscription; privacy itself the views (views.ts); chat the messages and the
 * mail setting; custom requests the requests), read from its own tables and streams and decoded like
 * every reader decodes them; this file adds when, where and the notes, and checks that every section
 * of the shared `memberExportSchema` came from exactly one module. Secrets (password and token
 * hashes, recovery-code hashes, the TOTP secret) are never included: they are not information about
 * the person, and a leaked export must not become a way in.
 */

import { memberExportSchema } from '@members/ui/api/schemas';
import { findUserById } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import type { AppModule, MemberExport } from '../kernel/module.js';
import { failure, type Result, success } from '../shared/result.js';

/** The modules whose parts make up a member's data rights: the app's module list. */
export type PersonalDataParts = readonly Pick<AppModule, 'name' | 'exportPersonalData' | 'erasePersonalData'>[];

/** The document's sections, in the order it has always listed them. */
const SECTIONS = Object.keys(memberExportSchema.shape) as (keyof MemberExport)[];

const NOTES = [
  'Password, reset-token and recovery-code hashes and the second-factor secret are stored but never exported.',
  'Your personal fields are encrypted in the event log with a key of your own; deleting your account destroys that key.',
  'Payment records (amounts, dates, plan, transaction hashes) are kept after deletion for accounting, without your name or e-mail address.',
];

/** The member's data; `not_found` for an unknown or erased member. */
export async function exportMemberData(ctx: AppContext, parts: PersonalDataParts, userId: string): Promise<Result<MemberExport>> {
  const user = await findUserById(ctx.db, userId);
  if (!user || user.erased_at) return failure('user.not_found', 'User not found');
  const given = new Map<string, { from: string; value: unknown }>([
    ['exportedAt', { from: 'privacy', value: ctx.clock.now().toISOString() }],
    ['site', { from: 'privacy', value: ctx.site.siteName }],
    ['notes', { from: 'privacy', value: NOTES }],
  ]);
  for (const m of parts) {
    if (!m.exportPersonalData) continue;
    for (const [section, value] of Object.entries(await m.exportPersonalData(ctx, userId))) {
      const other = given.get(section);
      if (other) throw new Error(`the data export's section ${section} comes from both ${other.from} and ${m.name}`);
      given.set(section, { from: m.name, value });
    }
  }
  const unknown = [...given.keys()].filter((s) => !SECTIONS.includes(s as keyof MemberExport));
  const missing = SECTIONS.filter((s) => !given.has(s));
  if (unknown.length || missing.length)
    throw new Error(
      `the data export does not match memberExportSchema: missing ${missing.join(', ') || 'none'}, unknown ${unknown.join(', ') || 'none'}`,
    );
  return success(Object.fromEntries(SECTIONS.map((s) => [s, given.get(s)?.value])) as MemberExport);
}

const esc = (v: unknown) =>
  String(v ?? '').replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);

function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '<p>None.</p>';
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) => esc(v !== null && typeof v === 'object' ? JSON.stringify(v) : v);
  return `<table><thead><tr>${cols.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${cols.map((c) => `<td>${cell(r[c])}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

/** The same content as a self-contained HTML page (no scripts, no external resources). */
export function renderExportHtml(x: MemberExport): string {
  const member = Object.entries(x.member).map(([k, v]) => ({ field: k, value: v }));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Your data at ${esc(x.site)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}</style>
</head><body>
<h1>Your data at ${esc(x.site)}</h1>
<p>Exported ${esc(x.exportedAt)}.</p>
<h2>Profile</h2>${table(member)}
<h2>Account history</h2>${table(x.accountHistory)}
<h2>Payments</h2>${table(x.payments)}
<h2>Subscription</h2>${table(x.subscription ? [x.subscription] : [])}
<h2>Subscription periods</h2>${table(x.subscriptionPeriods)}
<h2>Views</h2>${table(x.views)}
<h2>Watch time</h2>${table(x.watchTime)}
<h2>Two-factor authentication</h2>${table([x.secondFactor])}
<h2>Sessions</h2>${table(x.sessions)}
<h2>Chat messages</h2>${table(x.chatMessages)}
<h2>Custom video requests</h2>${table(x.customRequests)}
<h2>Live show chat messages</h2>${table(x.liveChatMessages)}
<h2>Mail settings</h2>${table([x.notifications])}
<h2>Notes</h2><ul>${x.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>
</body></html>
`;
}
