/** The shipped deploy/nginx.conf is the template rendered with its defaults (they cannot drift). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { DEFAULTS, renderNginxConf } from '../../../deploy/render-nginx.mjs';
import { envSchema } from './config/env.js';

const DEPLOY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../deploy');

it('deploy/nginx.conf is deploy/nginx.conf.template rendered with the defaults', () => {
  expect(fs.readFileSync(path.join(DEPLOY, 'nginx.conf'), 'utf8')).toBe(renderNginxConf());
  expect(renderNginxConf()).not.toMatch(/\{\{/);
});

it("matches the API's defaults: upload limit and media prefix", () => {
  const env = envSchema.parse({});
  expect(DEFAULTS.maxBody).toBe(`${env.MAX_UPLOAD_BYTES / 1024 ** 3}g`);
  expect(DEFAULTS.mediaPrefix).toBe(env.MEDIA_ACCEL_PREFIX);
});
