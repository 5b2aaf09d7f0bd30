/** The mail module: see module.ts for the shape. */
import type { AppModule } from '../module.js';

export const mailModule: AppModule = {
  name: 'mail',
};
