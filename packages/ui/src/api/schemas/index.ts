/**
 * The zod schemas of the API's answers, shared by the server and its clients: the API documents
 * (OpenAPI) and types its answers with them, and `packages/ui/src/api/types.ts` takes the client's
 * types from them, so a renamed field is a compile error on both sides.
 */
export * from './account';
export * from './admin';
export * from './billing';
export * from './catalog';
export * from './chat';
export * from './envelope';
export * from './errorCodes';
export * from './identity';
export * from './leaks';
export * from './live';
export * from './runners';
export * from './showChat';
export * from './site';
export * from './staff';
export * from './text';
