/** Test-only: posts a multipart upload the way the admin form does. */
import fs from 'node:fs';
import path from 'node:path';

export async function postUpload(
  baseUrl: string,
  token: string | undefined,
  fields: Record<string, string | string[]>,
  files: { video?: string; thumbnail?: string } = {},
): Promise<{ status: number; headers: Headers; body: { success: boolean; data?: any; error?: string } }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const item of Array.isArray(v) ? v : [v]) form.append(k, item);
  if (files.video) form.append('video', await fs.openAsBlob(files.video, { type: 'video/mp4' }), path.basename(files.video));
  if (files.thumbnail)
    form.append('thumbnail', await fs.openAsBlob(files.thumbnail, { type: 'image/jpeg' }), path.basename(files.thumbnail));
  const res = await fetch(`${baseUrl}/api/admin/upload-video`, {
    method: 'POST',
    body: form,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/**
 * Uploads `video` as the admin form does and waits until the server's transcode worker has made its
 * HLS ladder (the caller's hook timeout bounds the wait; no timing is asserted). Returns the video id.
 * @example const id = await uploadTranscoded(server.url, admin, clip, { title: 'Evening', accessLevel: 'free' })
 */
export async function uploadTranscoded(baseUrl: string, token: string, video: string, fields: Record<string, string>): Promise<string> {
  const up = await postUpload(baseUrl, token, fields, { video });
  if (up.status !== 201) throw new Error(`upload failed: ${up.status} ${up.body.error}`);
  const videoId = up.body.data.videoId as string;
  await waitTranscoded(baseUrl, token, videoId);
  return videoId;
}

/**
 * Waits (as an admin) until a video's HLS ladder is published. A member plays a video only once it is
 * transcoded: the original is for admins only, and members' progressive files are renditions.
 */
export async function waitTranscoded(baseUrl: string, token: string, videoId: string): Promise<void> {
  for (;;) {
    const res = await fetch(`${baseUrl}/api/admin/videos/${videoId}`, { headers: { authorization: `Bearer ${token}` } });
    const { transcode } = ((await res.json()) as { data: { transcode: { status: string; error?: string } } }).data;
    if (transcode.status === 'failed') throw new Error(`transcode failed: ${transcode.error}`);
    if (transcode.status === 'completed') return;
    await new Promise((r) => setTimeout(r, 300));
  }
}
