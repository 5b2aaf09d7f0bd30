/** The role → permission matrix (issue 42): its shape, and the admin guide's table is this very matrix. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { can, ROLE_PERMISSIONS, STAFF_PERMISSIONS, STAFF_ROLES } from './staffRoles';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

describe('staff roles', () => {
  it('gives the owner everything, staff management and erasure to the owner alone, and support no member data', () => {
    for (const p of STAFF_PERMISSIONS) expect(can('owner', p)).toBe(true);
    for (const role of STAFF_ROLES.filter((r) => r !== 'owner'))
      for (const p of ['staff', 'runners', 'erasure', 'forensics'] as const) expect(can(role, p)).toBe(false);
    expect(ROLE_PERMISSIONS.support.filter((p) => p.startsWith('members.'))).toEqual([]);
    expect(can('finance', 'chat')).toBe(false);
    expect(can('moderator', 'payments')).toBe(false);
  });

  it('is the table of docs/staff.md, row for row', () => {
    const doc = fs.readFileSync(path.join(root, 'docs/staff.md'), 'utf8');
    const table = doc.slice(doc.indexOf('<!-- roles-table:start -->'), doc.indexOf('<!-- roles-table:end -->'));
    const rows = table
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) => l.split('|').map((c) => c.trim()));
    expect(rows.map((r) => r[1]?.replaceAll('`', ''))).toEqual([...STAFF_PERMISSIONS]);
    for (const r of rows) {
      const permission = r[1]?.replaceAll('`', '') as (typeof STAFF_PERMISSIONS)[number];
      expect(STAFF_ROLES.map((_, i) => r[3 + i] === '✓')).toEqual(STAFF_ROLES.map((role) => can(role, permission)));
    }
  });
});
