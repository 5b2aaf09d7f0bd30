/**
 * The process logger. People read a terminal, machines read pipes: in a terminal outside production
 * each entry is one readable line (pino-pretty), everywhere else (production, pipes, files, the test
 * suites that parse log lines) one JSON object per line. `LOG_FORMAT` forces either.
 */
import pino from 'pino';
import pretty from 'pino-pretty';
import type { Env } from '../config/env.js';

export type LogFormat = 'json' | 'pretty';

/** The format `auto` resolves to: pretty only for a terminal outside production. */
export function logFormatFor(env: Pick<Env, 'LOG_FORMAT' | 'NODE_ENV'>, stdoutIsTty: boolean): LogFormat {
  if (env.LOG_FORMAT !== 'auto') return env.LOG_FORMAT;
  return stdoutIsTty && env.NODE_ENV !== 'production' ? 'pretty' : 'json';
}

export interface LoggerDestination extends NodeJS.WritableStream {
  isTTY?: boolean;
}

export function createLogger(
  env: Pick<Env, 'LOG_FORMAT' | 'NODE_ENV' | 'LOG_LEVEL'>,
  out: LoggerDestination = process.stdout,
): pino.Logger {
  const format = logFormatFor(env, out.isTTY === true);
  if (format === 'json') return out === process.stdout ? pino({ level: env.LOG_LEVEL }) : pino({ level: env.LOG_LEVEL }, out);
  const stream = pretty({
    destination: out,
    colorize: out.isTTY === true,
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
  return pino({ level: env.LOG_LEVEL }, stream);
}
