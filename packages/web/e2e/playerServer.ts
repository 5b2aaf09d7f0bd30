/**
 * The player suites' server: the production web bundle served by a real API (SQLite, its own
 * transcode worker on the ultrafast preset), one approved member, and one clip made by ffmpeg,
 * uploaded and transcoded to its HLS ladder before the first test.
 */
import {
  adminToken,
  apiClient,
  approvedMember,
  makeSizedClip,
  startTestServer,
  type TestServer,
  uploadTranscoded,
} from '../../api/test/support';
import { ensureBuilt, WEB_DIST } from './browser';

export interface PlayerServerOptions {
  /** Folder for the clip (the suite removes it). */
  media: string;
  member: { email: string; password: string; firstName: string; lastName: string; dateOfBirth: string };
  clip: Parameters<typeof makeSizedClip>[1];
  /** The upload form's fields: title, duration, accessLevel. */
  video: Record<string, string>;
  /** More of the server's environment (e.g. PUBLIC_URL when the browser reaches it through a proxy). */
  env?: Record<string, string>;
}

/** @example const { server, videoId } = await playerServer({ media, member, clip: { width: 640, height: 360, seconds: 4, kbps: 600 }, video }); */
export async function playerServer(opts: PlayerServerOptions): Promise<{ server: TestServer; videoId: string }> {
  ensureBuilt();
  const server = await startTestServer('sqlite', {
    env: { WEB_DIST, TRANSCODE_CONCURRENCY: '1', TRANSCODE_PRESET: 'ultrafast', ...opts.env },
  });
  await approvedMember(apiClient(server.url), opts.member);
  const clip = await makeSizedClip(opts.media, opts.clip);
  const videoId = await uploadTranscoded(server.url, await adminToken(server), clip, opts.video);
  return { server, videoId };
}
