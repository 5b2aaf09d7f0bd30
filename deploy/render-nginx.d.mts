export const TEMPLATE: string;
export const S3_SNIPPET: string;
export interface NginxOptions {
  upstreams: string[];
  listen: string;
  serverName: string;
  mediaRoot: string;
  mediaPrefix: string;
  maxBody: string;
  cacheDir: string;
  mediaStore: 'local' | 's3';
  resolver: string;
}
export const DEFAULTS: NginxOptions;
export function renderNginxConf(opts?: Partial<NginxOptions>): string;
export function standaloneNginxConf(prefix: string, site: string, rtmp?: string): string;
export const RTMP_TEMPLATE: string;
export interface RtmpOptions {
  listen: string;
  publishUrl: string;
  ingest: string;
  publishSecret: string;
}
export const RTMP_DEFAULTS: RtmpOptions;
export function renderRtmpConf(opts?: Partial<RtmpOptions>): string;
