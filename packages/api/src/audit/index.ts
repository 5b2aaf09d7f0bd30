/**
 * The audit module: tamper evidence (hash-chain verification, signed checkpoints), the payment
 * history, reconciliation and time travel, as admin routes; the CLI commands live in cli/.
 */
import type { AppModule } from '../module.js';
import { auditRoutes } from './routes.js';

export const auditModule: AppModule = {
  name: 'audit',
  routes: auditRoutes,
};
