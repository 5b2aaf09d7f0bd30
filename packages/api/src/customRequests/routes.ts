/**
 * Custom video requests over HTTP (issue 30; the paths and shapes are fixed there, docs/chat.md
 * explains them): the member's `/custom-requests` (ask, list, pay) and the admins'
 * `/admin/custom-requests` (queue, quote, decline, deliver). The payment is verified with billing's
 * `POST /admin/payments/{id}/verify`. Use cases: customRequests.service.ts.
 */
import {
  adminCustomRequestsAnswerSchema,
  CUSTOM_REQUEST_MAX_LENGTH,
  customRequestAnswerSchema,
  customRequestPaymentAnswerSchema,
  customRequestsAnswerSchema,
  multiLineText,
} from '@members/ui/api/schemas';
import { satsToBtc } from '@members/ui/money';
import { z } from 'zod';
import { createRateLimiter } from '../db/rateLimit.js';
import { callerOf, userOf } from '../http/auth.js';
import { ok, tooManyRequests, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { idParams, idSchema } from '../http/validate.js';
import type { Routes } from '../kernel/module.js';
import {
  allRequests,
  declineRequest,
  deliverRequest,
  payRequest,
  quoteRequest,
  requestsOf,
  submitRequest,
} from './customRequests.service.js';

/** Requests a member may send per day (docs/chat.md). */
export const CUSTOM_REQUEST_RATE_LIMIT = 10;
export const CUSTOM_REQUEST_RATE_LIMITED = 'Too many requests today. Please wait before asking for another custom video.';

const descriptionSchema = z.object({
  // The text policy: line breaks kept, no control or direction characters.
  description: multiLineText({
    min: 1,
    max: CUSTOM_REQUEST_MAX_LENGTH,
    required: 'is required',
    empty: 'Please describe the video you would like',
  }),
});
const quoteSchema = z.object({ btcAmount: z.string({ error: 'must be a BTC amount such as "0.002"' }).trim().min(1).max(30) });
const declineSchema = z.object({
  reason: multiLineText({
    min: 1,
    max: 500,
    required: 'Please give a reason for declining the request',
    empty: 'Please give a reason for declining the request',
  }),
});
const paySchema = z.object({ transactionHash: z.string().max(100).nullable().optional() });
const deliverSchema = z.object({ videoId: idSchema });

export const customRequestRoutes: Routes = (api, ctx) => {
  const perMember = createRateLimiter(ctx.db, 'custom-requests', CUSTOM_REQUEST_RATE_LIMIT, 86_400_000, () => ctx.clock.now().getTime());
  const tags: ['custom-requests'] = ['custom-requests'];

  const submitDoc = describe({
    summary: 'Request a custom video (annual plan)',
    description: `A description of 1 to ${CUSTOM_REQUEST_MAX_LENGTH} characters, at most ${CUSTOM_REQUEST_RATE_LIMIT} a day. Annual (VIP) members with an active subscription only: others get a 403 with the reason.`,
    tags,
    access: 'member',
    body: descriptionSchema,
    ok: { 201: customRequestAnswerSchema },
    errors: [429],
  });
  const listDoc = describe({
    summary: 'My custom video requests, newest first',
    tags,
    access: 'member',
    ok: { 200: customRequestsAnswerSchema },
  });
  const payDoc = describe({
    summary: 'Pay a quoted request',
    description:
      'Opens a payment of the quoted amount to a fresh receiving address (like a subscription payment) and tells the team it is sent (`transactionHash` optional). An admin verifies it with POST /admin/payments/{id}/verify; the request is then `paid`. The open payment is answered again (200).',
    tags,
    access: 'member',
    params: idParams,
    body: paySchema,
    ok: { 200: customRequestPaymentAnswerSchema, 201: customRequestPaymentAnswerSchema },
    errors: [404, 409],
  });
  const adminListDoc = describe({
    summary: 'The custom requests queue: paid (to deliver), new, quoted, then closed ones',
    tags,
    access: 'admin',
    permission: 'requests',
    ok: { 200: adminCustomRequestsAnswerSchema },
  });
  const quoteDoc = describe({
    summary: 'Quote a price in BTC',
    tags,
    access: 'admin',
    permission: 'requests',
    params: idParams,
    body: quoteSchema,
    ok: { 200: customRequestAnswerSchema },
    errors: [404, 409],
  });
  const declineDoc = describe({
    summary: 'Decline a request with a reason',
    tags,
    access: 'admin',
    permission: 'requests',
    params: idParams,
    body: declineSchema,
    ok: { 200: customRequestAnswerSchema },
    errors: [404, 409],
  });
  const deliverDoc = describe({
    summary: 'Deliver a paid request: a catalog video only its requester (and admins) can see',
    tags,
    access: 'admin',
    permission: 'requests',
    params: idParams,
    body: deliverSchema,
    ok: { 200: customRequestAnswerSchema },
    errors: [404, 409],
  });

  api.post('/custom-requests', submitDoc, async function requestCustomVideo(c) {
    const user = userOf(c);
    const { description } = c.req.valid('json');
    if (!(await perMember.hit(user.id))) {
      const window = await perMember.peek(user.id);
      throw tooManyRequests(CUSTOM_REQUEST_RATE_LIMITED, window ? (window.resetAt - ctx.clock.now().getTime()) / 1000 : 86_400);
    }
    return ok(c, { request: valueOr(await submitRequest(ctx, user, description, callerOf(c))) }, 201);
  });
  api.get('/custom-requests', listDoc, async function ownCustomRequests(c) {
    return ok(c, { requests: await requestsOf(ctx, userOf(c).id) });
  });
  api.post('/custom-requests/:id/pay', payDoc, async function payCustomRequest(c) {
    const { id } = c.req.valid('param');
    const { transactionHash } = c.req.valid('json');
    const { created, payment, request } = valueOr(await payRequest(ctx, userOf(c), id, transactionHash, callerOf(c)));
    const answer = {
      id: payment.id,
      address: payment.address,
      btcAmount: satsToBtc(Number(payment.amount_sats)),
      bip21Uri: payment.bip21_uri,
    };
    return ok(c, { payment: answer, request }, created ? 201 : 200);
  });

  api.get('/admin/custom-requests', adminListDoc, async function customRequestQueue(c) {
    return ok(c, { requests: await allRequests(ctx) });
  });
  api.post('/admin/custom-requests/:id/quote', quoteDoc, async function quoteCustomRequest(c) {
    const { btcAmount } = c.req.valid('json');
    return ok(c, { request: valueOr(await quoteRequest(ctx, c.req.valid('param').id, btcAmount, callerOf(c))) });
  });
  api.post('/admin/custom-requests/:id/decline', declineDoc, async function declineCustomRequest(c) {
    const { reason } = c.req.valid('json');
    return ok(c, { request: valueOr(await declineRequest(ctx, c.req.valid('param').id, reason, callerOf(c))) });
  });
  api.post('/admin/custom-requests/:id/deliver', deliverDoc, async function deliverCustomRequest(c) {
    const { videoId } = c.req.valid('json');
    return ok(c, { request: valueOr(await deliverRequest(ctx, c.req.valid('param').id, videoId, callerOf(c))) });
  });
};
