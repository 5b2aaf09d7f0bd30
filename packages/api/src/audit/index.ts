/** The audit module: see module.ts for the shape. */
import type { AppModule } from '../module.js';

export const auditModule: AppModule = {
  name: 'audit',
};
