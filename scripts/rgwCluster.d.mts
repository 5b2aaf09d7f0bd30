// Types of scripts/rgwCluster.mjs for the TypeScript tests that import it (packages/api/test/s3.ts).
export interface ExtraGateway {
  endpoint: string;
  port: number;
  name: string;
  pid(): number | undefined;
  /** Its RADOS client address (`127.0.0.1:0/NONCE`), fenced after a SIGKILL; undefined while stopped. */
  address(): string | undefined;
  stop(signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}
export function rgwAvailable(): boolean;
export function startRgwCluster(opts?: { log?: (line: string) => void }): Promise<{
  endpoint: string;
  accessKey: string;
  secretKey: string;
  dir: string;
  readyMs: number;
  stop: () => void;
}>;
export function startExtraGateway(dir: string, opts?: { name?: string; log?: (line: string) => void }): Promise<ExtraGateway>;
