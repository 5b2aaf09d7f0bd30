/**
 * The one event-store interface every adapter implements (SQLite, PostgreSQL, later KurrentDB).
 * Streams hold an aggregate's events at versions 1..n; the whole store has one global order
 * (`position`, 1..n, gap-free) and one SHA-256 hash chain over it for auditors.
 */
import type { Queryable } from '../db/types.js';
import type { EventMetadata, NewEvent } from '../shared/events.js';

// Defined beside the deciders that produce them (shared/ imports no store).
export type { EventMetadata, NewEvent };

export interface RecordedEvent<T extends string = string, D = Record<string, unknown>> {
  eventId: string;
  streamId: string;
  /** 1-based version inside the stream. */
  version: number;
  /** 1-based global position. */
  position: number;
  type: T;
  data: D;
  metadata: EventMetadata;
  recordedAt: string;
  prevHash: string;
  hash: string;
}

/**
 * - a number: the stream must be at exactly that version (0 = empty)
 * - 'no_stream': the stream must not exist
 * - 'stream_exists': the stream must have at least one event
 * - 'any': no check
 */
export type ExpectedVersion = number | 'no_stream' | 'stream_exists' | 'any';

export interface AppendOptions {
  expectedVersion: ExpectedVersion;
  metadata: EventMetadata;
  /**
   * Runs inside the append's transaction before anything is written; throwing rolls the append back.
   * For a write outside the log that must commit with the events or not at all (a transcode
   * runner's lease check and its job's new state). SQL stores only: the KurrentDB adapter refuses it.
   */
  inTransaction?: (tx: Queryable) => Promise<void>;
}

export interface AppendResult {
  /** The stream's version after the append. */
  nextVersion: number;
  /** Global position of the last appended event. */
  lastPosition: number;
  events: RecordedEvent[];
}

export class ConcurrencyError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    readonly actual: number,
  ) {
    super(`Stream ${streamId} is at version ${actual}, expected ${String(expected)}`);
    this.name = 'ConcurrencyError';
  }
}

export interface ReadAllOptions {
  /** Return events with position strictly greater than this (default 0: from the start). */
  after?: number;
  limit?: number;
}

export interface EventStore {
  append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult>;
  readStream(streamId: string): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Pages through the whole log in order without holding it in memory. */
  streamAll(options?: { after?: number; batchSize?: number }): AsyncIterable<RecordedEvent>;
  /** Highest global position (0 when empty). */
  headPosition(): Promise<number>;
  /** Called after every successful local append (for waking subscribers without polling delay). */
  onAppended(listener: (events: RecordedEvent[]) => void): () => void;
  close(): Promise<void>;
}
