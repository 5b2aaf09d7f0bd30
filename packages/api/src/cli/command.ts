/** The shape of one CLI command; `commands.ts` lists them. */
import type { Env } from '../config/env.js';
import type { SiteConfig } from '../config/site.js';

export interface CliInput {
  env: Env;
  site: SiteConfig;
  args: string[];
}

export interface CliCommand {
  summary: string;
  run(input: CliInput): Promise<number>;
}
