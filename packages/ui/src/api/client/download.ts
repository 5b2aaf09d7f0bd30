/**
 * Downloads: a file the API answers with the bearer token (not a link: the token is not a
 * cookie), e.g. the member's data export. The name comes from Content-Disposition.
 */
import type { Calls } from './session';
import { ApiError, parseEnvelope, type RequestOptions } from './transport';

export function createDownload(calls: Calls) {
  const { transport } = calls;
  return async function download(
    path: string,
    opts: RequestOptions = {},
    fallbackName = 'download',
  ): Promise<{ blob: Blob; filename: string }> {
    await calls.ensureFresh();
    const h = transport.headers(false);
    h.Accept = '*/*';
    let res: Response;
    try {
      res = await transport.fetch(transport.url(path, opts.query), { headers: h, credentials: 'include' });
    } catch {
      throw new ApiError(0, 'Network error. Please check your connection and try again.');
    }
    if (!res.ok) return transport.fail(res.status, parseEnvelope(await res.text(), ''), opts);
    const disposition = res.headers.get('content-disposition') ?? '';
    const filename = /filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? fallbackName;
    return { blob: await res.blob(), filename };
  };
}
