/**
 * Mail's part of a member's erasure (AppModule.erasePersonalData; the privacy module runs it, after
 * every mail write or delivery that saw the member's key has finished, shredding/personalWrites.ts):
 * the outbox rows for them, to or mentioning any address they used, and those mails' .eml files in
 * the dev outbox. Nothing to export: a mail says what the other areas' sections say.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../kernel/context.js';
import type { ErasedMember } from '../kernel/module.js';
import { emlFileName, outboxDir } from './transport.js';

export async function eraseMailData(ctx: AppContext, member: ErasedMember): Promise<Record<string, number>> {
  const keys = (await ctx.db.all<{ key: string }>('SELECT key FROM mail_outbox WHERE subject_id = ?', [member.userId])).map((r) => r.key);
  for (const a of member.addresses) {
    const like = `%${a.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    const rows = await ctx.db.all<{ key: string }>(
      `SELECT key FROM mail_outbox WHERE LOWER(to_address) = ? OR LOWER(text_body) LIKE ? ESCAPE '\\' OR LOWER(COALESCE(html_body, '')) LIKE ? ESCAPE '\\'`,
      [a, like, like],
    );
    keys.push(...rows.map((r) => r.key));
  }
  let removed = 0;
  for (const key of new Set(keys)) removed += (await ctx.db.run('DELETE FROM mail_outbox WHERE key = ?', [key])).changes;
  const dir = outboxDir(ctx);
  if (fs.existsSync(dir)) {
    // Their mails' files by name (an address may be folded across lines inside), then any file naming an address.
    const names = new Set(keys.map(emlFileName));
    for (const name of fs.readdirSync(dir)) {
      if (!name.endsWith('.eml')) continue;
      const file = path.join(dir, name);
      if (names.has(name) || member.addresses.some((a) => fs.readFileSync(file, 'utf8').toLowerCase().includes(a)))
        fs.rmSync(file, { force: true });
    }
  }
  return { mailsRemoved: removed };
}
