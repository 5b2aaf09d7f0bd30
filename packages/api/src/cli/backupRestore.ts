/**
 * `pnpm cli backup DIR` and `pnpm cli restore DIR`: a consistent copy of the running site's store
 * and media (see backup/siteBackup.ts), and its restore into an empty DATA_DIR (plus, for
 * PostgreSQL, an empty database named by DATABASE_URL). Restore verifies the hash chain of the
 * result against the manifest's head. A site on dev defaults has its generated secrets carried by
 * the backup and put back by the restore; a backup without a dev-default DATA_KEY_SECRET is restored
 * only with DATA_KEY_SECRET set (its data keys open with nothing else).
 */
import { verifyChain } from '../audit/index.js';
import { BackupError, backupSite, readBackupManifest, restoreSite } from '../backup/index.js';
import type { Env } from '../config/env.js';
import type { Queryable } from '../db/types.js';
import { MediaStoreError, openMediaStore } from '../media/index.js';
import { masterKeysOf, wrappingKids } from '../shredding/index.js';
import { parseFlags } from './args.js';
import { envStoreUrl, openAuditStore } from './auditStore.js';
import type { CliCommand } from './command.js';
import { cliDevDefaults } from './devDefaults.js';
import { erasuresReapply } from './privacy.js';

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

export const backup: CliCommand = {
  summary:
    'back up the store (SQLite online backup or pg_dump), media and dev-default secrets into an empty DIR, with a manifest [--media: from an object store too]',
  async run({ env, args, devDefaults }) {
    const { rest, flags } = parseFlags(args);
    // `backup --media DIR` reads DIR as the flag's value: --media takes none.
    if (flags.media && flags.media !== 'true') rest.unshift(flags.media);
    const dir = rest[0];
    if (!dir) {
      console.error(
        'Usage: backup DIR [--media]   (DIR must be new or empty; --media: with MEDIA_STORE=s3://…, copy the media from the bucket too)',
      );
      return 2;
    }
    const objectStore = env.MEDIA_STORE !== 'local';
    const fromBucket = objectStore && flags.media !== undefined ? await openMediaStore(env) : undefined;
    if (objectStore && !fromBucket)
      console.warn(
        `Note: the media is in ${env.MEDIA_STORE} and is not copied into this backup (add --media to copy it, or back the bucket up with the object store's own tools: docs/media-storage.md)`,
      );
    try {
      const m = await backupSite(
        {
          dataDir: env.DATA_DIR,
          databaseUrl: env.DATABASE_URL,
          devDefaults,
          media: objectStore && !fromBucket ? 'skip' : 'copy',
          ...(fromBucket && { mediaFrom: fromBucket }),
        },
        dir,
      );
      const bytes = m.database.size + m.media.reduce((s, f) => s + f.size, 0);
      console.log(
        `Backed up ${m.store} store at position ${m.head.position} (hash ${m.head.hash ?? '-'}) and ${m.media.length} media files, ${mib(bytes)}, in ${m.durationMs} ms to ${dir}`,
      );
      const carried = m.devDefaultSecrets ?? [];
      if (carried.length)
        console.log(
          `The site runs on dev-default secrets (${carried.map((c) => c.variable).join(', ')}): the backup carries them in ${dir}/dev-secrets; keep it as private as the secrets themselves`,
        );
      for (const id of m.missingMedia) console.warn(`Warning: video ${id} was deleted while the backup ran; its files are not in it`);
      return 0;
    } catch (err) {
      if (err instanceof BackupError || err instanceof MediaStoreError) {
        console.error(`backup failed: ${err.message}`);
        return 1;
      }
      throw err;
    }
  },
};

/** Master key ids wrapping data keys in the store that neither DATA_KEY_SECRET nor DATA_KEY_SECRET_PREVIOUS is. */
async function foreignMasterKeys(db: Queryable, env: Env): Promise<string[]> {
  const keys = masterKeysOf(env.DATA_KEY_SECRET as string, env.DATA_KEY_SECRET_PREVIOUS);
  const known = new Set([keys.current.kid, keys.previous?.kid]);
  // A store from before crypto-shredding has no data_keys table: nothing to open.
  const kids = await wrappingKids(db).catch(() => []);
  return kids.filter((kid) => !known.has(kid));
}

export const restore: CliCommand = {
  summary: 'restore a backup DIR into an empty DATA_DIR (and, for PostgreSQL, the empty DATABASE_URL) [--erasures FILE]',
  // The backup's own dev-default secrets go into the empty DATA_DIR first; only then the rest are filled.
  fillsDevDefaults: true,
  async run(input) {
    const { env, args } = input;
    const { rest, flags } = parseFlags(args);
    const dir = rest[0];
    if (!dir) {
      console.error('Usage: restore DIR   (into the empty DATA_DIR, and the empty DATABASE_URL for a PostgreSQL backup)');
      return 2;
    }
    try {
      const carried = (await readBackupManifest(dir)).devDefaultSecrets ?? [];
      if (!env.DATA_KEY_SECRET && !carried.some((c) => c.variable === 'DATA_KEY_SECRET')) {
        console.error(
          'restore refused: this backup does not carry a DATA_KEY_SECRET (the site ran with one set in its environment, or the backup was made before backups carried dev defaults). ' +
            "Set DATA_KEY_SECRET to the secret the backed-up site ran with (a dev site's is the content of its DATA_DIR/dev-data-key-secret) and restore again; without it the members' data keys do not open.",
        );
        return 2;
      }
      // On an object store the backup's media goes into the bucket (checked object by object), not DATA_DIR.
      const mediaTo = env.MEDIA_STORE !== 'local' ? await openMediaStore(env) : undefined;
      const m = await restoreSite(dir, { dataDir: env.DATA_DIR, databaseUrl: env.DATABASE_URL, ...(mediaTo && { mediaTo }) });
      cliDevDefaults(env);
      if (carried.length) console.log(`Put back the backup's dev-default secrets: ${carried.map((c) => c.variable).join(', ')}`);
      const opened = await openAuditStore(env, { store: envStoreUrl(env) });
      try {
        const v = await verifyChain(opened.store, m.head.hash ? { expect: { position: m.head.position, hash: m.head.hash } } : {});
        if (!v.ok || v.headPosition !== m.head.position) {
          console.error(`Restored, but the store does not verify against the manifest's head: ${JSON.stringify(v)}`);
          return 1;
        }
        const foreign = opened.db ? await foreignMasterKeys(opened.db, env) : [];
        if (foreign.length) {
          console.error(
            `Restored, but this DATA_KEY_SECRET (master key ${masterKeysOf(env.DATA_KEY_SECRET as string).current.kid}) does not open the members' data keys, wrapped by master key ${foreign.join(', ')}: ` +
              'set DATA_KEY_SECRET to the secret the backed-up site ran with before starting the server on it.',
          );
          return 1;
        }
      } finally {
        await opened.close();
      }
      console.log(
        `Restored ${m.store} store at position ${m.head.position} (hash ${m.head.hash ?? '-'}, verified) into ${env.DATA_DIR} and ${m.media.length} media files into ${mediaTo ? mediaTo.location : env.DATA_DIR}`,
      );
      // Members erased after the backup was made had their keys in it: erase them again (README "Privacy").
      if (flags.erasures) {
        const code = await erasuresReapply.run({ ...input, args: [flags.erasures] });
        if (code !== 0) return code;
      }
      console.log('Start the server on it; read models are restored with the store (`pnpm cli projections rebuild` is not needed).');
      return 0;
    } catch (err) {
      if (err instanceof BackupError || err instanceof MediaStoreError) {
        console.error(`restore failed: ${err.message}`);
        return 1;
      }
      throw err;
    }
  },
};
