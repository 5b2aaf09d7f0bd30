/**
 * `pnpm cli backup DIR` and `pnpm cli restore DIR`: a consistent copy of the running site's store
 * and media (see backup/siteBackup.ts), and its restore into an empty DATA_DIR (plus, for
 * PostgreSQL, an empty database named by DATABASE_URL). Restore verifies the hash chain of the
 * result against the manifest's head.
 */
import { verifyChain } from '../audit/verifyChain.js';
import { BackupError, backupSite, restoreSite } from '../backup/siteBackup.js';
import { parseFlags } from './args.js';
import { envStoreUrl, openAuditStore } from './auditStore.js';
import type { CliCommand } from './command.js';
import { erasuresReapply } from './privacy.js';

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

export const backup: CliCommand = {
  summary: 'back up the store (SQLite online backup or pg_dump) and media into an empty DIR, with a manifest',
  async run({ env, args }) {
    const dir = parseFlags(args).rest[0];
    if (!dir) {
      console.error('Usage: backup DIR   (DIR must be new or empty)');
      return 2;
    }
    const objectStore = env.MEDIA_STORE !== 'local';
    if (objectStore)
      console.warn(
        `Note: the media is in ${env.MEDIA_STORE} and is not copied into this backup; back the bucket up with the object store's own tools (docs/media-storage.md)`,
      );
    try {
      const m = await backupSite({ dataDir: env.DATA_DIR, databaseUrl: env.DATABASE_URL, media: objectStore ? 'skip' : 'copy' }, dir);
      const bytes = m.database.size + m.media.reduce((s, f) => s + f.size, 0);
      console.log(
        `Backed up ${m.store} store at position ${m.head.position} (hash ${m.head.hash ?? '-'}) and ${m.media.length} media files, ${mib(bytes)}, in ${m.durationMs} ms to ${dir}`,
      );
      for (const id of m.missingMedia) console.warn(`Warning: video ${id} was deleted while the backup ran; its files are not in it`);
      return 0;
    } catch (err) {
      if (err instanceof BackupError) {
        console.error(`backup failed: ${err.message}`);
        return 1;
      }
      throw err;
    }
  },
};

export const restore: CliCommand = {
  summary: 'restore a backup DIR into an empty DATA_DIR (and, for PostgreSQL, the empty DATABASE_URL) [--erasures FILE]',
  async run(input) {
    const { env, args } = input;
    const { rest, flags } = parseFlags(args);
    const dir = rest[0];
    if (!dir) {
      console.error('Usage: restore DIR   (into the empty DATA_DIR, and the empty DATABASE_URL for a PostgreSQL backup)');
      return 2;
    }
    try {
      const m = await restoreSite(dir, { dataDir: env.DATA_DIR, databaseUrl: env.DATABASE_URL });
      const opened = await openAuditStore(env, { store: envStoreUrl(env) });
      try {
        const v = await verifyChain(opened.store, m.head.hash ? { expect: { position: m.head.position, hash: m.head.hash } } : {});
        if (!v.ok || v.headPosition !== m.head.position) {
          console.error(`Restored, but the store does not verify against the manifest's head: ${JSON.stringify(v)}`);
          return 1;
        }
      } finally {
        await opened.close();
      }
      console.log(
        `Restored ${m.store} store at position ${m.head.position} (hash ${m.head.hash ?? '-'}, verified) and ${m.media.length} media files into ${env.DATA_DIR}`,
      );
      // Members erased after the backup was made had their keys in it: erase them again (README "Privacy").
      if (flags.erasures) {
        const code = await erasuresReapply.run({ ...input, args: [flags.erasures] });
        if (code !== 0) return code;
      }
      console.log('Start the server on it; read models are restored with the store (`pnpm cli projections rebuild` is not needed).');
      return 0;
    } catch (err) {
      if (err instanceof BackupError) {
        console.error(`restore failed: ${err.message}`);
        return 1;
      }
      throw err;
    }
  },
};
