/** The streaming module: see module.ts for the shape. */
import type { AppModule } from '../module.js';

export const streamingModule: AppModule = {
  name: 'streaming',
};
