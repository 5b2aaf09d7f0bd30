/**
 * The local store's stand-in for presigned URLs: signed, expiring routes of the API that read one
 * job's original (`GET /api/runners/files/{videoId}/{claimAttempt}/source`) and write into that
 * job's ladder (`PUT /api/runners/files/{videoId}/{claimAttempt}/hls/{path}`). The signature is an
 * HMAC-SHA256 over (method, video, claim attempt, runner token name, expiry) with a key derived from
 * TOKEN_SECRET for this purpose only, so it can pass for no other signature; the route also checks
 * that the token it names is still live and that the claim is still the job's current one, held by
 * that token. A URL of one video's job cannot read or write another video's files, nor outlive its
 * claim or its token. Time comes from the caller (the injected clock).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type FileMethod = 'GET' | 'PUT';

export interface FileGrant {
  method: FileMethod;
  videoId: string;
  claimAttempt: number;
  /** The runner token that claimed the job (its name): the URL dies with it. */
  tokenName: string;
  /** Unix seconds. */
  expires: number;
}

function fileKey(secret: string): Buffer {
  return createHmac('sha256', secret).update('members/runner-files/v1').digest();
}

export function fileSignature(secret: string, g: FileGrant): string {
  return createHmac('sha256', fileKey(secret))
    .update(`${g.method}\n${g.videoId}\n${g.claimAttempt}\n${g.tokenName}\n${g.expires}`)
    .digest('base64url');
}

/** The query (`e`, `t`, `s`) that authorizes `g`. */
export function signFileQuery(secret: string, g: FileGrant): string {
  return new URLSearchParams({ e: String(g.expires), t: g.tokenName, s: fileSignature(secret, g) }).toString();
}

/**
 * 'ok', or why the presented query does not authorize this method on this job's files at
 * `nowSeconds`. An 'ok' query's `t` is the token name it was signed for (the caller checks it is live).
 */
export function checkFileQuery(
  secret: string,
  g: Omit<FileGrant, 'expires' | 'tokenName'>,
  q: { e?: string | undefined; t?: string | undefined; s?: string | undefined },
  nowSeconds: number,
): 'ok' | 'invalid' | 'expired' {
  const expires = Number(q.e);
  if (!q.e || !q.s || !q.t || !Number.isInteger(expires)) return 'invalid';
  const want = Buffer.from(fileSignature(secret, { ...g, tokenName: q.t, expires }));
  const got = Buffer.from(q.s);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return 'invalid';
  return expires < nowSeconds ? 'expired' : 'ok';
}
