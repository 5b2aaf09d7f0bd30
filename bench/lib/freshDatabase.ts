/**
 * A fresh PostgreSQL database for one bench: on TEST_DATABASE_URL's server when it is set (`npm
 * test` and `pnpm bench` start one), else on a throwaway cluster of its own. `drop()` removes it
 * (and stops that cluster).
 */
import { createRequire } from 'node:module';
import { startPgCluster } from '../../scripts/pgCluster.mjs';

const fromApi = createRequire(new URL('../../packages/api/package.json', import.meta.url));
const { default: pg } = (await import(fromApi.resolve('pg'))) as { default: typeof import('pg') };

/** @example const db = await freshDatabase('chat'); … await db.drop(); */
export async function freshDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  let cluster: { url: string; stop: () => void } | undefined;
  let admin = process.env.TEST_DATABASE_URL;
  if (!admin) {
    cluster = await startPgCluster();
    admin = cluster.url;
  }
  const name = `bench_${prefix}_${Date.now().toString(36)}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
      cluster?.stop();
    },
  };
}
