/** The identity module: see module.ts for the shape. */
import type { AppModule } from '../module.js';

export const identityModule: AppModule = {
  name: 'identity',
};
