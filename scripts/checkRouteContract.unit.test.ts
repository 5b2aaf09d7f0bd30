/**
 * The lint rule of scripts/check-route-contract.mjs: hand parses of request input and handlers that
 * check access themselves are found (the shapes the routes had before describe enforced access);
 * a handler reading what its route's describe validated and granted is not.
 */
import { expect, it } from 'vitest';
import { handlerAccessChecks, handParses } from './check-route-contract.mjs';

it('finds every raw read of query and path parameters', () => {
  const planted = [
    "const check = verifyHlsGrant(ctx, videoId, { u: c.req.query('u'), s: c.req.query('s') });",
    "const name = c.req.param('rendition') ?? '';",
    "const all = c.req.queries('tag');",
    'return parseWith(schema, c.req.query()) as z.infer<S>;',
  ];
  expect(planted.map((line) => handParses(line).length)).toEqual(planted.map(() => 1));
  expect(handParses("const { id } = c.req.valid('param');\n// c.req.query('s') in a comment")).toEqual([]);
});

it('finds a handler that checks a signature, a token, a ticket or an owner, itself or through a helper of its file', () => {
  const planted = `
    export const routes = (api, ctx) => {
      async function granted(c) {
        const check = verifyHlsGrant(ctx, c.req.valid('param').id, c.req.valid('query'));
        if (!check.ok) throw new HttpError('stream.link_invalid', STREAM_LINK_INVALID);
        return check.grant;
      }
      api.get('/hls/:id/master.m3u8', doc, async function master(c) {
        return text(c, await granted(c));
      });
      api.get('/chat/socket', doc, async (c) => {
        const holder = await redeemTicket(ctx, c.req.valid('query').ticket);
        if (!holder) throw new HttpError('chat.invalid_ticket', BAD_TICKET);
      });
      const own = async (c) => (await mayTouchUpload(ctx.db, c.req.valid('param').id, userOf(c).id)) || notTheirs(c);
      api.patch('/admin/uploads/:id', doc, own);
      api.post('/admin/uploads', doc, async (c) => {
        uploads.actors.set(c.req.raw, { adminId: userOf(c).id });
        return uploads.handle(c.req.raw);
      });
    };`;
  expect(handlerAccessChecks('planted.ts', planted).map((f) => f.route)).toEqual([
    'GET /hls/:id/master.m3u8',
    'GET /chat/socket',
    'PATCH /admin/uploads/:id',
    'POST /admin/uploads',
  ]);
});

it("lets handlers through that read their route's grant and validated input", () => {
  const clean = `
    export const routes = (api, ctx) => {
      const rechecked = hlsGrant(ctx, { recheck: true });
      api.get('/hls/:id/master.m3u8', hlsDoc('master', idOnly, TYPE, rechecked), async function master(c) {
        const g = grantOf(c, rechecked);
        return text(c, masterPlaylist(g.allowed, g.query));
      });
      api.get('/videos/:id', doc, async (c) => ok(c, await findVideo(ctx.db, c.req.valid('param').id)));
    };`;
  expect(handlerAccessChecks('clean.ts', clean)).toEqual([]);
});
