/** Test-only: posts a multipart upload the way the admin form does. */
import fs from 'node:fs';
import path from 'node:path';

export async function postUpload(
  baseUrl: string,
  token: string | undefined,
  fields: Record<string, string | string[]>,
  files: { video?: string; thumbnail?: string } = {},
): Promise<{ status: number; body: { success: boolean; data?: any; error?: string } }> {
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
  return { status: res.status, body: (await res.json()) as any };
}
