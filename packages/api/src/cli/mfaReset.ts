/** `pnpm cli mfa reset EMAIL`: removes an account's second factor (lost device and recovery codes). */

import { findUserByEmail, resetSecondFactor } from '../identity/index.js';
import { closeContext, createContext } from '../kernel/context.js';
import { allProjections } from '../wiring/modules.js';
import type { CliCommand } from './command.js';

export const mfaReset: CliCommand = {
  summary: "remove an account's second factor (lost device and recovery codes; check who asks first)",
  async run({ env, site, args }) {
    const email = args[0];
    if (!email) {
      console.error('Usage: pnpm cli mfa reset EMAIL');
      return 2;
    }
    const ctx = await createContext(env, site, allProjections());
    try {
      const user = await findUserByEmail(ctx.db, email);
      if (!user) {
        console.error(`No account with the address ${email}`);
        return 1;
      }
      const result = await resetSecondFactor(ctx, user.id, { actorId: null, actor: 'cli:mfa-reset' });
      if (!result.ok) {
        console.error(result.error.message);
        return 1;
      }
      console.log(`Two-factor authentication removed for ${user.email}; they can log in with the password and enrol again.`);
      return 0;
    } finally {
      await closeContext(ctx);
    }
  },
};
