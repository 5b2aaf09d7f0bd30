/** `--name value` / `--name=value` flags for CLI commands, and writing streamed text to stdout. */
import { once } from 'node:events';

export function parseFlags(args: string[]): { flags: Record<string, string>; rest: string[] } {
  const flags: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith('--')) {
      rest.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
    else if (i + 1 < args.length && !(args[i + 1] as string).startsWith('--')) flags[a.slice(2)] = args[++i] as string;
    else flags[a.slice(2)] = 'true';
  }
  return { flags, rest };
}

/** Writes chunks to stdout, waiting for it to drain, so a large report never piles up in memory. */
export async function writeChunks(chunks: AsyncIterable<string>, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  for await (const chunk of chunks) {
    if (!out.write(chunk)) await once(out, 'drain');
  }
}
