// `npm run site`: install, build and start the whole site on one port (default 8080) with the
// embedded event store under DATA_DIR (default ./data). No other server is needed.
import { installDependencies, pnpmRun } from './lib.mjs';

installDependencies();
pnpmRun(['build']);
pnpmRun(['start']);
