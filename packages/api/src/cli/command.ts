/** The shape of one CLI command; `commands.ts` lists them. */
import type { FilledDefault } from '../config/devDefaults.js';
import type { Env } from '../config/env.js';
import type { SiteConfig } from '../config/site.js';

export interface CliInput {
  env: Env;
  site: SiteConfig;
  args: string[];
  /** The secrets filled with their dev defaults (config/devDefaults.ts); a backup carries exactly these. */
  devDefaults?: FilledDefault[];
}

export interface CliCommand {
  summary: string;
  /**
   * The command fills the dev defaults itself, later (restore: only once the backup's own are in
   * DATA_DIR); every other command gets them filled before it runs, as the server does.
   */
  fillsDevDefaults?: true;
  run(input: CliInput): Promise<number>;
  /**
   * Runs without the environment (no DATABASE_URL, secrets, DATA_DIR or dev defaults) when it
   * returns a promise for these arguments: `transcode-runner` (a token runner holds only its token).
   */
  runBare?(args: string[]): Promise<number> | undefined;
}
