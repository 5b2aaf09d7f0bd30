/** The CLI's command table: `name → { summary, run }`. Add a command: write `cli/<name>.ts` exporting a `CliCommand` (command.ts) and list it here. */

import { auditBitcoinCheck } from './auditBitcoinCheck.js';
import { auditCheckpoint, auditKeygen } from './auditCheckpoint.js';
import { auditPayments } from './auditPayments.js';
import { auditReconcile } from './auditReconcile.js';
import { auditReplay } from './auditReplay.js';
import { auditVerify } from './auditVerify.js';
import { backup, restore } from './backupRestore.js';
import type { CliCommand } from './command.js';
import { mediaCopy } from './mediaCopy.js';
import { mfaReset } from './mfaReset.js';
import { migrateCommand } from './migrate.js';
import { erasuresList, erasuresReapply, keysRotate } from './privacy.js';
import { projectionsRebuild } from './projectionsRebuild.js';
import { runnersTokenCreate, runnersTokenList, runnersTokenRevoke } from './runnerTokens.js';
import { storeCopy } from './storeCopy.js';
import { transcodeRunner } from './transcodeRunner.js';
import { videosImport } from './videosImport.js';
import { watermarkIdentify } from './watermark.js';

export type { CliCommand, CliInput } from './command.js';

export const commands: Record<string, CliCommand> = {
  migrate: migrateCommand,
  'projections rebuild': projectionsRebuild,
  'audit verify': auditVerify,
  'audit checkpoint': auditCheckpoint,
  'audit keygen': auditKeygen,
  'audit payments': auditPayments,
  'audit bitcoin-check': auditBitcoinCheck,
  'audit reconcile': auditReconcile,
  'audit replay': auditReplay,
  'store copy': storeCopy,
  'media copy': mediaCopy,
  backup,
  restore,
  'mfa reset': mfaReset,
  'keys rotate': keysRotate,
  'erasures list': erasuresList,
  'erasures reapply': erasuresReapply,
  'transcode-runner': transcodeRunner,
  'runners token create': runnersTokenCreate,
  'runners token list': runnersTokenList,
  'runners token revoke': runnersTokenRevoke,
  'videos import': videosImport,
  'watermark identify': watermarkIdentify,
};
