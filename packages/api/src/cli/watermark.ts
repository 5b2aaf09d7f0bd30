/**
 * `pnpm cli watermark identify FILE [--video ID]`: names the member whose stream a leaked copy
 * was made from (docs/leak-tracing.md). Exit 0 when a member is named, 1 for "no match" or
 * "too short: needs at least N s", 2 for a usage error. The request is recorded (forensics/identify.service.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import { describeExamination, examineCopy } from '../forensics/index.js';
import { closeContext, createContext } from '../kernel/context.js';
import { allProjections } from '../wiring/modules.js';
import type { CliCommand } from './command.js';

export const watermarkIdentify: CliCommand = {
  summary: 'name the member a leaked copy of a marked video was streamed by (FORENSIC_WATERMARK)',
  async run({ env, site, args }) {
    const file = args[0];
    const at = args.indexOf('--video');
    const videoId = at >= 0 ? args[at + 1] : undefined;
    if (!file || file.startsWith('--') || (at >= 0 && !videoId)) {
      console.error('Usage: pnpm cli watermark identify FILE [--video ID]');
      return 2;
    }
    if (!fs.existsSync(file)) {
      console.error(`No such file: ${file}`);
      return 2;
    }
    const ctx = await createContext(env, site, allProjections());
    try {
      const started = Date.now();
      const r = await examineCopy(
        ctx,
        { actorId: null, actor: `cli:watermark-identify (${os.userInfo().username})` },
        file,
        videoId ? { videoId } : {},
      );
      console.log(describeExamination(r));
      console.error(`(file SHA-256 ${r.sha256}; ${((Date.now() - started) / 1000).toFixed(1)} s)`);
      return r.kind === 'identified' ? 0 : 1;
    } finally {
      await closeContext(ctx);
    }
  },
};
