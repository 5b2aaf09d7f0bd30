/** The geo module: see module.ts for the shape. */
import type { AppModule } from '../module.js';

export const geoModule: AppModule = {
  name: 'geo',
};
