import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, type LoggerDestination, logFormatFor } from './logger.js';

function sink(isTTY: boolean): { out: LoggerDestination; text: () => string } {
  const out = new PassThrough() as PassThrough & { isTTY?: boolean };
  out.isTTY = isTTY;
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  return { out, text: () => Buffer.concat(chunks).toString('utf8') };
}

const base = { LOG_LEVEL: 'info' as const };

describe('log format', () => {
  it('auto is pretty in a development terminal only', () => {
    expect(logFormatFor({ LOG_FORMAT: 'auto', NODE_ENV: 'development' }, true)).toBe('pretty');
    expect(logFormatFor({ LOG_FORMAT: 'auto', NODE_ENV: 'development' }, false)).toBe('json');
    expect(logFormatFor({ LOG_FORMAT: 'auto', NODE_ENV: 'production' }, true)).toBe('json');
    expect(logFormatFor({ LOG_FORMAT: 'auto', NODE_ENV: 'test' }, false)).toBe('json');
  });

  it('LOG_FORMAT forces either', () => {
    expect(logFormatFor({ LOG_FORMAT: 'json', NODE_ENV: 'development' }, true)).toBe('json');
    expect(logFormatFor({ LOG_FORMAT: 'pretty', NODE_ENV: 'production' }, false)).toBe('pretty');
  });

  it('a terminal gets readable lines, not JSON', async () => {
    const { out, text } = sink(true);
    createLogger({ ...base, LOG_FORMAT: 'auto', NODE_ENV: 'development' }, out).info({ port: 8080 }, 'server listening');
    await new Promise((r) => setImmediate(r));
    const line = text().trim();
    expect(line).toContain('server listening');
    expect(line).toContain('INFO');
    expect(() => JSON.parse(line)).toThrow();
  });

  it('a pipe gets one JSON object per line', async () => {
    const { out, text } = sink(false);
    createLogger({ ...base, LOG_FORMAT: 'auto', NODE_ENV: 'development' }, out).info({ port: 8080 }, 'server listening');
    await new Promise((r) => setImmediate(r));
    const entry = JSON.parse(text().trim());
    expect(entry).toMatchObject({ level: 30, msg: 'server listening', port: 8080 });
  });
});
