/** The parts of node-media-server 2.7 (CommonJS, no types of its own) the embedded RTMP ingest uses (live/rtmpIngest.ts). */
declare module 'node-media-server/src/node_rtmp_session.js' {
  import type { Socket } from 'node:net';
  export default class NodeRtmpSession {
    constructor(config: unknown, socket: Socket);
    readonly id: string;
    readonly socket: Socket;
    readonly videoWidth: number;
    readonly videoHeight: number;
    readonly audioCodec: number;
    run(): void;
    reject(): void;
    stop(): void;
  }
}
declare module 'node-media-server/src/node_core_ctx.js' {
  import type { EventEmitter } from 'node:events';
  export const nodeEvent: EventEmitter;
  export const sessions: Map<string, unknown>;
}
declare module 'node-media-server/src/node_core_logger.js' {
  export function setLogType(type: number): void;
}
