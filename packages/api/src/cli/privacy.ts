/**
 * Operator commands of crypto-shredding (README "Privacy"):
 * - `keys rotate`: re-wraps every member's data key with the current DATA_KEY_SECRET, unwrapping with
 *   DATA_KEY_SECRET_PREVIOUS (the old one). The data keys themselves and the events do not change.
 * - `erasures list`: the ids and times of every erased member (ids are not personal data); keep the
 *   newest list outside the backups, so a restore can erase again whoever was erased after the backup.
 * - `erasures reapply FILE`: after a restore, erases again every member listed in FILE (one id per
 *   line, first column) who is not erased in this store.
 */
import fs from 'node:fs';
import { ConfigError } from '../config/env.js';
import { migrate } from '../db/migrate.js';
import { closeContext, createContext, openDatabase } from '../kernel/context.js';
import { reapplyErasures } from '../privacy/index.js';
import { erasedSubjects, masterKeysOf, rewrapDataKeys } from '../shredding/index.js';
import { allProjections, modules } from '../wiring/modules.js';
import type { CliCommand } from './command.js';

export const keysRotate: CliCommand = {
  summary: 're-wrap every data key with DATA_KEY_SECRET (the old secret in DATA_KEY_SECRET_PREVIOUS)',
  async run({ env }) {
    if (!env.DATA_KEY_SECRET || !env.DATA_KEY_SECRET_PREVIOUS)
      throw new ConfigError('keys rotate needs DATA_KEY_SECRET (the new master secret) and DATA_KEY_SECRET_PREVIOUS (the old one)');
    const keys = masterKeysOf(env.DATA_KEY_SECRET, env.DATA_KEY_SECRET_PREVIOUS);
    const db = openDatabase(env);
    try {
      await migrate(db);
      const started = performance.now();
      const r = await db.transaction(async (tx) => rewrapDataKeys(tx, keys));
      console.log(
        `Re-wrapped ${r.rewrapped} data keys with master key ${keys.current.kid} (${r.alreadyCurrent} already were) in ${Math.round(performance.now() - started)} ms. DATA_KEY_SECRET_PREVIOUS can be removed once every process runs with the new DATA_KEY_SECRET.`,
      );
      return 0;
    } finally {
      await db.close();
    }
  },
};

export const erasuresList: CliCommand = {
  summary: 'print the ids of erased members (tab, time): keep the newest list outside the backups',
  async run({ env }) {
    const db = openDatabase(env);
    try {
      await migrate(db);
      for (const e of await erasedSubjects(db)) console.log(`${e.subjectId}\t${e.erasedAt}`);
      return 0;
    } finally {
      await db.close();
    }
  },
};

export const erasuresReapply: CliCommand = {
  summary: 'after a restore: erase again every member listed in FILE (output of `erasures list`)',
  async run({ env, site, args }) {
    const file = args[0];
    if (!file) {
      console.error('Usage: pnpm cli erasures reapply FILE');
      return 2;
    }
    const ids = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map((l) => l.split('\t')[0]?.trim() ?? '')
      .filter((id) => id !== '' && !id.startsWith('#'));
    const ctx = await createContext(env, site, allProjections());
    try {
      const r = await reapplyErasures(ctx, modules, ids);
      console.log(
        `Erased again: ${r.reapplied.length}; already erased: ${r.alreadyErased.length}; not in this store (registered after the backup): ${r.unknown.length}`,
      );
      return 0;
    } finally {
      await closeContext(ctx);
    }
  },
};
