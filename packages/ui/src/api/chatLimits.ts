/** The chat's limits, without zod (the browser bundle's chat components import this, not the schemas). */

/** Longest message, in characters after trimming (docs/chat.md). */
export const CHAT_MAX_LENGTH = 2000;

/** Longest custom video request description, in characters after trimming (docs/chat.md). */
export const CUSTOM_REQUEST_MAX_LENGTH = 2000;
