/**
 * Tests run on the repository's `site.config.example.json`, always: an operator's own
 * `site.config.json` (other prices, other blocked regions) must never change what a test sees.
 * In-process servers get `exampleSiteConfig()`; child processes get `SITE_CONFIG` set to the file.
 * A production start refuses the example's test-vector address (billing/moneyTraps.ts): the suites
 * that start `main.ts` with NODE_ENV=production get `productionSiteConfigFile()`, the example with
 * a receiving address of its own.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Address, NETWORK } from '@scure/btc-signer';
import { loadSiteConfig, ROOT_DIR, type SiteConfig } from '../src/config/site.js';

export const EXAMPLE_SITE_CONFIG = path.join(ROOT_DIR, 'site.config.example.json');

export function exampleSiteConfig(): SiteConfig {
  return loadSiteConfig(EXAMPLE_SITE_CONFIG).config;
}

/** A valid mainnet P2WPKH address nobody's test vector: the hash of no known key (20 random bytes). */
export function randomMainnetAddress(): string {
  return Address(NETWORK).encode({ type: 'wpkh', hash: randomBytes(20) });
}

let productionFile: string | undefined;

/** The example config with an address of its own, written once per test process (removed at its exit). */
export function productionSiteConfigFile(): string {
  if (productionFile) return productionFile;
  const raw = JSON.parse(fs.readFileSync(EXAMPLE_SITE_CONFIG, 'utf8'));
  raw.bitcoin.address = randomMainnetAddress();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-config-production-'));
  const file = path.join(dir, 'site.config.json');
  fs.writeFileSync(file, `${JSON.stringify(raw, null, 2)}\n`);
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  productionFile = file;
  return file;
}
