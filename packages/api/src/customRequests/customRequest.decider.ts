/**
 * A custom video request (issue 30, annual plan), stream `custom-request-{requestId}`:
 * requested (the member's description) → quoted (an admin's BTC price) or declined (with a reason)
 * → a payment opened (billing's `payment-{paymentId}`, a fresh address) → paid (that payment
 * verified by an admin) → delivered (a video of the catalog, visible to the requester only).
 * Pure: ids, time, who acts and whether the opened payment is still open arrive in the command;
 * who may request at all (approved, annual subscription) is the service's question.
 *
 * `CustomRequestSubmitted.description` and `CustomRequestDeclined.reason` are personal data sealed
 * under the member's data key (shredding/personalData.ts): an erasure shreds them, the amounts and
 * payments stay for the auditors.
 */
import { CUSTOM_REQUEST_MAX_LENGTH } from '@members/ui/api/schemas';
import { satsToBtc } from '@members/ui/money';
import { accept, type Decider, reject } from '../shared/decider.js';

export const customRequestStream = (requestId: string) => `custom-request-${requestId}`;

export const DESCRIPTION_REQUIRED = 'description: Please describe the video you would like';
export const DESCRIPTION_TOO_LONG = `description: must be at most ${CUSTOM_REQUEST_MAX_LENGTH} characters`;
export const REQUEST_NOT_FOUND = 'Custom request not found';
export const NOT_YOUR_REQUEST = 'This request belongs to another account';
/** A quote above the site's ceiling (site config `customRequests.maxQuoteBtc`). */
export const quoteTooHigh = (maxSats: number) =>
  `btcAmount: must be at most ${satsToBtc(maxSats)} BTC (the site's customRequests.maxQuoteBtc)`;

export type CustomRequestStatus = 'none' | 'requested' | 'quoted' | 'declined' | 'paid' | 'delivered';

export type CustomRequestCommand =
  | { type: 'SubmitCustomRequest'; requestId: string; userId: string; description: string; now: string }
  | {
      type: 'QuoteCustomRequest';
      requestId: string;
      amountSats: number;
      /** The site's ceiling (site config `customRequests.maxQuoteBtc`): a quote above it is a typo, refused. */
      maxAmountSats: number;
      quotedBy: string;
      now: string;
    }
  | { type: 'DeclineCustomRequest'; requestId: string; reason: string; declinedBy: string; paymentOpen: boolean; now: string }
  | { type: 'OpenCustomRequestPayment'; requestId: string; userId: string; paymentId: string; now: string }
  | { type: 'MarkCustomRequestPaid'; requestId: string; paymentId: string; amountSats: number; verifiedBy: string; now: string }
  | { type: 'DeliverCustomRequest'; requestId: string; videoId: string; deliveredBy: string; now: string };

export interface CustomRequestSubmitted {
  type: 'CustomRequestSubmitted';
  data: { requestId: string; userId: string; description: string; requestedAt: string };
}
export interface CustomRequestQuoted {
  type: 'CustomRequestQuoted';
  data: { requestId: string; userId: string; amountSats: number; quotedBy: string; quotedAt: string };
}
export interface CustomRequestDeclined {
  type: 'CustomRequestDeclined';
  data: { requestId: string; userId: string; reason: string; declinedBy: string; declinedAt: string };
}
export interface CustomRequestPaymentOpened {
  type: 'CustomRequestPaymentOpened';
  data: { requestId: string; userId: string; paymentId: string; amountSats: number; openedAt: string };
}
export interface CustomRequestPaid {
  type: 'CustomRequestPaid';
  data: { requestId: string; userId: string; paymentId: string; amountSats: number; verifiedBy: string; paidAt: string };
}
export interface CustomRequestDelivered {
  type: 'CustomRequestDelivered';
  data: { requestId: string; userId: string; videoId: string; deliveredBy: string; deliveredAt: string };
}
export type CustomRequestEvent =
  | CustomRequestSubmitted
  | CustomRequestQuoted
  | CustomRequestDeclined
  | CustomRequestPaymentOpened
  | CustomRequestPaid
  | CustomRequestDelivered;
export const CUSTOM_REQUEST_EVENT_TYPES = [
  'CustomRequestSubmitted',
  'CustomRequestQuoted',
  'CustomRequestDeclined',
  'CustomRequestPaymentOpened',
  'CustomRequestPaid',
  'CustomRequestDelivered',
] as const;

export interface CustomRequestState {
  status: CustomRequestStatus;
  userId?: string;
  amountSats?: number;
  paymentId?: string;
  videoId?: string;
}

/** The description as stored (trimmed), or what is wrong with it. */
export function descriptionProblem(description: string): string | null {
  const t = description.trim();
  if (t.length === 0) return DESCRIPTION_REQUIRED;
  if (t.length > CUSTOM_REQUEST_MAX_LENGTH) return DESCRIPTION_TOO_LONG;
  return null;
}

function decide(command: CustomRequestCommand, state: CustomRequestState) {
  if (command.type !== 'SubmitCustomRequest' && state.status === 'none') return reject('custom_request.not_found', REQUEST_NOT_FOUND);
  const userId = state.userId as string;
  switch (command.type) {
    case 'SubmitCustomRequest': {
      const problem = descriptionProblem(command.description);
      if (problem) return reject('validation.invalid_input', problem);
      if (state.status !== 'none') return reject('custom_request.state_conflict', 'This request was already sent');
      return accept<CustomRequestEvent>({
        type: 'CustomRequestSubmitted',
        data: { requestId: command.requestId, userId: command.userId, description: command.description.trim(), requestedAt: command.now },
      });
    }
    case 'QuoteCustomRequest': {
      if (!Number.isSafeInteger(command.amountSats) || command.amountSats <= 0)
        return reject('validation.invalid_input', 'btcAmount: must be a BTC amount above zero such as "0.002"');
      if (command.amountSats > command.maxAmountSats) return reject('validation.invalid_input', quoteTooHigh(command.maxAmountSats));
      if (state.status === 'quoted' && state.paymentId)
        return reject('custom_request.state_conflict', 'The member has already opened a payment for this quote; it cannot be changed');
      if (state.status !== 'requested' && state.status !== 'quoted')
        return reject('custom_request.state_conflict', `This request is already ${state.status}`);
      return accept<CustomRequestEvent>({
        type: 'CustomRequestQuoted',
        data: { requestId: command.requestId, userId, amountSats: command.amountSats, quotedBy: command.quotedBy, quotedAt: command.now },
      });
    }
    case 'DeclineCustomRequest': {
      const reason = command.reason.trim();
      if (!reason) return reject('validation.invalid_input', 'reason: Please give a reason for declining the request');
      if (command.paymentOpen)
        return reject('custom_request.state_conflict', 'A payment is open for this request: verify or reject it first');
      if (state.status !== 'requested' && state.status !== 'quoted')
        return reject('custom_request.state_conflict', `This request is already ${state.status}`);
      return accept<CustomRequestEvent>({
        type: 'CustomRequestDeclined',
        data: { requestId: command.requestId, userId, reason, declinedBy: command.declinedBy, declinedAt: command.now },
      });
    }
    case 'OpenCustomRequestPayment': {
      if (command.userId !== userId) return reject('custom_request.not_found', REQUEST_NOT_FOUND);
      if (state.status === 'requested') return reject('custom_request.state_conflict', 'This request has not been quoted yet');
      if (state.status !== 'quoted') return reject('custom_request.state_conflict', `This request is already ${state.status}`);
      return accept<CustomRequestEvent>({
        type: 'CustomRequestPaymentOpened',
        data: {
          requestId: command.requestId,
          userId,
          paymentId: command.paymentId,
          amountSats: state.amountSats as number,
          openedAt: command.now,
        },
      });
    }
    case 'MarkCustomRequestPaid': {
      // The same verification seen again (a retry) changes nothing.
      if (state.status === 'paid' || state.status === 'delivered')
        return state.paymentId === command.paymentId
          ? accept<CustomRequestEvent>()
          : reject('custom_request.state_conflict', 'This request is already paid');
      if (state.status !== 'quoted' || state.paymentId !== command.paymentId)
        return reject('custom_request.state_conflict', 'This payment is not the open payment of the request');
      if (command.amountSats !== state.amountSats)
        return reject('custom_request.state_conflict', 'The payment does not match the quoted amount');
      return accept<CustomRequestEvent>({
        type: 'CustomRequestPaid',
        data: {
          requestId: command.requestId,
          userId,
          paymentId: command.paymentId,
          amountSats: command.amountSats,
          verifiedBy: command.verifiedBy,
          paidAt: command.now,
        },
      });
    }
    case 'DeliverCustomRequest': {
      if (state.status === 'delivered')
        return state.videoId === command.videoId
          ? accept<CustomRequestEvent>()
          : reject('custom_request.state_conflict', 'This request was already delivered');
      if (state.status !== 'paid') return reject('custom_request.state_conflict', 'Only a paid request can be delivered');
      return accept<CustomRequestEvent>({
        type: 'CustomRequestDelivered',
        data: {
          requestId: command.requestId,
          userId,
          videoId: command.videoId,
          deliveredBy: command.deliveredBy,
          deliveredAt: command.now,
        },
      });
    }
  }
}

function evolve(state: CustomRequestState, event: CustomRequestEvent): CustomRequestState {
  switch (event.type) {
    case 'CustomRequestSubmitted':
      return { status: 'requested', userId: event.data.userId };
    case 'CustomRequestQuoted':
      return { ...state, status: 'quoted', amountSats: event.data.amountSats };
    case 'CustomRequestDeclined':
      return { ...state, status: 'declined' };
    case 'CustomRequestPaymentOpened':
      return { ...state, paymentId: event.data.paymentId };
    case 'CustomRequestPaid':
      return { ...state, status: 'paid' };
    case 'CustomRequestDelivered':
      return { ...state, status: 'delivered', videoId: event.data.videoId };
    default:
      return state;
  }
}

export const customRequestDecider: Decider<CustomRequestCommand, CustomRequestEvent, CustomRequestState> = {
  initialState: () => ({ status: 'none' }),
  decide,
  evolve,
};
