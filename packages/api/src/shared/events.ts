/** An event as a decider produces it, and the metadata every recorded event carries (eventstore/types.ts re-exports both). */

export interface EventMetadata {
  /** The user who caused the event (absent for system actions such as the scheduler). */
  actorId?: string | null;
  requestId?: string | null;
  /** ISO time the command was handled (from the injected clock). */
  at: string;
  [key: string]: unknown;
}

/** An event as a decider produces it. */
export interface NewEvent<T extends string = string, D = Record<string, unknown>> {
  type: T;
  data: D;
}
