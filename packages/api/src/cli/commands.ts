/** The CLI's command table: `name → { summary, run }`. Modules add their commands here. */
import type { Env } from '../config/env.js';
import type { SiteConfig } from '../config/site.js';
import { projectionsRebuild } from './projectionsRebuild.js';

export interface CliInput {
  env: Env;
  site: SiteConfig;
  args: string[];
}

export interface CliCommand {
  summary: string;
  run(input: CliInput): Promise<number>;
}

export const commands: Record<string, CliCommand> = {
  'projections rebuild': projectionsRebuild,
};
