/** The resumable uploads module (admin desktop bulk upload): see module.ts for the shape. */
import type { AppModule } from '../module.js';

export const uploadsModule: AppModule = {
  name: 'uploads',
};
