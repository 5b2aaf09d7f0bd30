export const TEMPLATE: string;
export interface NginxOptions {
  upstreams: string[];
  listen: string;
  serverName: string;
  mediaRoot: string;
  mediaPrefix: string;
  maxBody: string;
  cacheDir: string;
}
export const DEFAULTS: NginxOptions;
export function renderNginxConf(opts?: Partial<NginxOptions>): string;
export function standaloneNginxConf(prefix: string, site: string): string;
