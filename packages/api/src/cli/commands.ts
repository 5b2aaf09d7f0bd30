/** The CLI's command table: `name → { summary, run }`. Modules add their commands here. */
import type { Env } from '../config/env.js';
import type { SiteConfig } from '../config/site.js';
import { auditCheckpoint, auditKeygen } from './auditCheckpoint.js';
import { auditPayments } from './auditPayments.js';
import { auditReconcile } from './auditReconcile.js';
import { auditReplay } from './auditReplay.js';
import { auditVerify } from './auditVerify.js';
import { mfaReset } from './mfaReset.js';
import { projectionsRebuild } from './projectionsRebuild.js';
import { storeCopy } from './storeCopy.js';

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
  'audit verify': auditVerify,
  'audit checkpoint': auditCheckpoint,
  'audit keygen': auditKeygen,
  'audit payments': auditPayments,
  'audit reconcile': auditReconcile,
  'audit replay': auditReplay,
  'store copy': storeCopy,
  'mfa reset': mfaReset,
};
