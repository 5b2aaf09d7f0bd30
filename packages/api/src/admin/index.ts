/** The admin module: see module.ts for the shape. */
import type { AppModule } from '../module.js';

export const adminModule: AppModule = {
  name: 'admin',
};
