// `npm run site`: install, build and start the whole site on one port (default 8080) with the
// embedded event store under DATA_DIR (default ./data). No other server is needed.
import { installDependencies, pnpmRun, requireSupportedNode } from './lib.mjs';

requireSupportedNode();
installDependencies();
pnpmRun(['build']);
pnpmRun(['start']);
