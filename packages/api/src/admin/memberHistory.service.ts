/**
 * The admin's member page: the member as the read model has them now, and their history read from
 * their own streams in the log (`user-{id}`: registration, approval, security changes, erasure;
 * `subscription-{id}`; and each `payment-{id}` of theirs, found through billing's read model).
 */

import { isStaffRole, STAFF_ROLE_LABELS } from '@members/ui/staffRoles';
import { paymentIdsOfMember, paymentStreamId, subscriptionStreamId } from '../billing/index.js';
import { findUserById, geoLocationOf, userStream } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { failure, type Result, success } from '../shared/result.js';
import { type HistoryEntry, memberHistory } from './memberHistory.js';

export interface MemberSummary {
  id: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  role: string | null;
  status: string | null;
  membershipStatus: string | null;
  subscriptionStatus: string | null;
  createdAt: string | null;
  geoLocation: { country: string; region: string } | null;
}

export interface MemberHistoryAnswer {
  member: MemberSummary;
  history: (HistoryEntry & { actor: string })[];
}

/**
 * The member's page. `payments`: whether the reader's staff role may see payments (a moderator reads
 * the history without its payment entries).
 */
export async function getMemberHistory(
  ctx: AppContext,
  userId: string,
  opts: { payments: boolean } = { payments: true },
): Promise<Result<MemberHistoryAnswer>> {
  const own = await ctx.store.readStream(userStream(userId));
  if (own.length === 0) return failure('member.not_found', 'Member not found');
  const payments = opts.payments
    ? await Promise.all((await paymentIdsOfMember(ctx.db, userId)).map((id) => ctx.store.readStream(paymentStreamId(id))))
    : [];
  const subscription = await ctx.store.readStream(subscriptionStreamId(userId));
  const history = memberHistory([...own, ...subscription, ...payments.flat()]).filter((h) => opts.payments || h.category !== 'payment');

  // Actors in words: the member themself, a staff member by name and role (an owner from before
  // staff roles by e-mail), or the system job that acted.
  const names = new Map<string, string>([[userId, 'member']]);
  for (const id of new Set(history.map((h) => h.actorId).filter((a): a is string => Boolean(a)))) {
    if (names.has(id)) continue;
    const actor = await findUserById(ctx.db, id);
    const staff = actor?.role === 'admin' && isStaffRole(actor.staff_role) ? actor.staff_role : null;
    names.set(
      id,
      !actor
        ? id
        : staff
          ? `${actor.first_name} (${STAFF_ROLE_LABELS[staff]})`
          : actor.role === 'admin'
            ? `admin ${actor.email}`
            : actor.email,
    );
  }

  const row = await findUserById(ctx.db, userId);
  const member: MemberSummary = {
    id: userId,
    email: row?.email ?? null,
    firstName: row?.first_name ?? null,
    lastName: row?.last_name ?? null,
    role: row?.role ?? null,
    status: row?.status ?? null,
    membershipStatus: row?.membership_status ?? null,
    subscriptionStatus: row?.subscription_status ?? null,
    createdAt: row?.created_at ?? null,
    geoLocation: row ? geoLocationOf(row) : null,
  };
  return success({
    member,
    history: history.map((h) => ({ ...h, actor: h.actorId ? (names.get(h.actorId) ?? h.actorId) : (h.systemActor ?? 'system') })),
  });
}
