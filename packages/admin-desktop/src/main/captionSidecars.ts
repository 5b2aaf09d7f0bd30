/**
 * Caption files beside a video the admin uploads in bulk (`clip.vtt`, `clip.en.vtt`,
 * `clip.pt-BR.srt`, the naming `pnpm cli videos import` reads): found next to the chosen video by
 * the main process and sent after its upload as the video's caption tracks
 * (POST /api/admin/videos/{id}/captions, docs/videos.md#captions), the language from the name
 * (`clip.vtt`: English). The server parses and cleans them; a refused file is reported on the row.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { TusEndpoint } from './tusClient.js';

export interface CaptionSidecar {
  file: string;
  language: string;
}

const LANGUAGE_IN_NAME = /^[a-z]{2,3}(-[A-Za-z0-9]+)?$/;

/** The caption sidecars of `videoPath`, sorted by name. */
export async function captionSidecars(videoPath: string): Promise<CaptionSidecar[]> {
  const dir = path.dirname(videoPath);
  const base = path.basename(videoPath, path.extname(videoPath));
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  return names
    .filter((n) => ['.vtt', '.srt'].includes(path.extname(n).toLowerCase()) && n.startsWith(`${base}.`))
    .map((n) => ({ name: n, inner: n.slice(base.length + 1, -path.extname(n).length) }))
    .filter(({ inner }) => inner === '' || LANGUAGE_IN_NAME.test(inner))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(({ name, inner }) => ({ file: path.join(dir, name), language: inner || 'en' }));
}

/** Sends each sidecar as a caption track of `videoId`: the languages added and the refusals. */
export async function uploadCaptionSidecars(
  ep: TusEndpoint,
  videoId: string,
  videoPath: string,
): Promise<{ added: string[]; failed: string[] }> {
  const added: string[] = [];
  const failed: string[] = [];
  for (const sidecar of await captionSidecars(videoPath)) {
    const name = path.basename(sidecar.file);
    try {
      const form = new FormData();
      form.append('language', sidecar.language);
      form.append('file', new Blob([new Uint8Array(await fsp.readFile(sidecar.file))]), name);
      const token = await ep.accessToken();
      const res = await fetch(`${ep.baseUrl()}/api/admin/videos/${encodeURIComponent(videoId)}/captions`, {
        method: 'POST',
        body: form,
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      });
      const body = (await res.json().catch(() => ({}))) as { data?: { language?: string }; error?: string };
      if (res.status === 201) added.push(body.data?.language ?? sidecar.language);
      else failed.push(`${name}: ${body.error ?? `HTTP ${res.status}`}`);
    } catch (err) {
      failed.push(`${name}: ${(err as Error).message}`);
    }
  }
  return { added, failed };
}
