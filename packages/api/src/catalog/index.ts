/** The catalog module: see module.ts for the shape. */
import type { AppModule } from '../module.js';

export const catalogModule: AppModule = {
  name: 'catalog',
};
