/**
 * The audit module: tamper evidence (hash-chain verification, signed checkpoints), the payment
 * history, reconciliation and time travel, as admin routes; the CLI commands live in cli/.
 */
import type { AppModule } from '../kernel/module.js';
import { auditRoutes } from './routes.js';

export { bitcoinCheck, describeBitcoinCheck, verifiedEvidence } from './bitcoinCheck.js';
export { generateSigningKeys, type SignedCheckpoint, signCheckpoint, verifyCheckpointSignature } from './checkpoint.js';
export { formatRows, parseDateBound, parseFormat } from './formats.js';
export { parseReplayPoint } from './ledger.js';
export { PAYMENT_HISTORY_COLUMNS, paymentHistory } from './paymentHistory.js';
export { describeReconcile, reconcile } from './reconcile.js';
export { SUBSCRIPTION_AT_COLUMNS, subscriptionsAt } from './subscriptionReplay.js';
export { describeVerify, verifyChain } from './verifyChain.js';

export const auditModule: AppModule = {
  name: 'audit',
  routes: auditRoutes,
};
