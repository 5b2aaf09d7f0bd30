/**
 * The process logger. People read a terminal, machines read pipes: in a terminal outside production
 * each entry is one readable line (pino-pretty), everywhere else (production, pipes, files, the test
 * suites that parse log lines) one JSON object per line. `LOG_FORMAT` forces either. pino-pretty
 * is loaded only for the pretty format.
 */
import { createRequire } from 'node:module';
import pino from 'pino';
import type PinoPretty from 'pino-pretty';
import type { Env } from '../config/env.js';
import { redactSecrets } from '../shared/redact.js';

export type LogFormat = 'json' | 'pretty';

/** The format `auto` resolves to: pretty only for a terminal outside production. */
export function logFormatFor(env: Pick<Env, 'LOG_FORMAT' | 'NODE_ENV'>, stdoutIsTty: boolean): LogFormat {
  if (env.LOG_FORMAT !== 'auto') return env.LOG_FORMAT;
  return stdoutIsTty && env.NODE_ENV !== 'production' ? 'pretty' : 'json';
}

export interface LoggerDestination extends NodeJS.WritableStream {
  isTTY?: boolean;
}

/** An error as pino writes it, with any signed URL in its message or stack redacted (shared/redact.ts). */
function redactedErr(err: Error): Record<string, unknown> {
  const out = pino.stdSerializers.err(err) as unknown as Record<string, unknown>;
  for (const field of ['message', 'stack']) if (typeof out[field] === 'string') out[field] = redactSecrets(out[field] as string);
  return out;
}

const options = (env: Pick<Env, 'LOG_LEVEL'>): pino.LoggerOptions => ({ level: env.LOG_LEVEL, serializers: { err: redactedErr } });

export function createLogger(
  env: Pick<Env, 'LOG_FORMAT' | 'NODE_ENV' | 'LOG_LEVEL'>,
  out: LoggerDestination = process.stdout,
): pino.Logger {
  const format = logFormatFor(env, out.isTTY === true);
  if (format === 'json') return out === process.stdout ? pino(options(env)) : pino(options(env), out);
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  const stream = pretty({
    destination: out,
    colorize: out.isTTY === true,
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
  return pino(options(env), stream);
}
