/**
 * Tests run on the repository's `site.config.example.json`, always: an operator's own
 * `site.config.json` (other prices, other blocked regions) must never change what a test sees.
 * In-process servers get `exampleSiteConfig()`; child processes get `SITE_CONFIG` set to the file.
 */
import path from 'node:path';
import { loadSiteConfig, ROOT_DIR, type SiteConfig } from '../src/config/site.js';

export const EXAMPLE_SITE_CONFIG = path.join(ROOT_DIR, 'site.config.example.json');

export function exampleSiteConfig(): SiteConfig {
  return loadSiteConfig(EXAMPLE_SITE_CONFIG).config;
}
