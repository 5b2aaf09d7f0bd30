/**
 * Removes what would let a reader fetch media from text that is stored or logged: the signature
 * and credential of a presigned object-store URL (`X-Amz-Signature`, `X-Amz-Credential`,
 * `X-Amz-Security-Token`, and SigV2's `Signature`) and our own media URLs' `s=` (grant signature)
 * and `t=` (key token) values. ffmpeg's stderr names the URL it read, so a failed transcode's
 * message would otherwise carry a working link into the event log, the admin UI and the log. One
 * function, used at each sink: the TranscodeFailed event, the admin's view of it, and the logger's
 * error serializer (logging/logger.ts). Pure.
 *
 * @example redactSecrets('GET https://s3/b/k?X-Amz-Credential=AK%2F…&X-Amz-Signature=ab12') // 'GET https://s3/b/k?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]'
 */
const SECRET_PARAMS = /([?&](?:X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|Signature|s|t)=)[^&\s"'<>]*/gi;

export const REDACTED = '[redacted]';

export function redactSecrets(text: string): string {
  return text.replace(SECRET_PARAMS, `$1${REDACTED}`);
}
