/**
 * Every byte a store keeps — the SQLite file and its WAL, or a plain pg_dump of the database — as
 * one string: what an erasure test searches for text that must be gone.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pgTool } from '../src/backup/siteBackup.js';
import type { FreshStore } from './harness.js';

export function storeBytes(store: Pick<FreshStore, 'env' | 'dataDir'>): string {
  const url = store.env.DATABASE_URL;
  if (url) return execFileSync(pgTool('pg_dump'), ['--no-owner', '--no-acl', url], { maxBuffer: 256 * 1024 * 1024 }).toString('latin1');
  const file = path.join(store.dataDir, 'store.sqlite');
  return [file, `${file}-wal`]
    .filter((f) => fs.existsSync(f))
    .map((f) => fs.readFileSync(f).toString('latin1'))
    .join('\n');
}
