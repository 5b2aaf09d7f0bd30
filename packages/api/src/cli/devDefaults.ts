/**
 * The CLI's secrets: the server's dev defaults (config/devDefaults.ts, one function for both), said on
 * stderr when one is generated. In production an unset secret stays unset: the command that needs
 * it says so.
 */
import { type FilledDefault, fillDevDefaults } from '../config/devDefaults.js';
import type { Env } from '../config/env.js';

export function cliDevDefaults(env: Env): FilledDefault[] {
  const filled = fillDevDefaults(env, { inProduction: 'leave' });
  for (const d of filled.filter((f) => f.generated))
    console.warn(`[dev default] ${d.variable} not set: generated a secret into ${d.file} (the server uses it too)`);
  return filled;
}
