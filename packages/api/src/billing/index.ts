/** The billing module: see module.ts for the shape. */
import type { AppModule } from '../module.js';

export const billingModule: AppModule = {
  name: 'billing',
};
