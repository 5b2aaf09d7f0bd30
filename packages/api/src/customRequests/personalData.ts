/**
 * Custom requests' part of a member's data export (AppModule.exportPersonalData; the privacy module
 * runs it): their requests as they read now, with what they wrote and what the team answered. An
 * erasure needs nothing here: the projection blanks the texts on `MemberErased`, and they are sealed
 * under the key it destroys. A new personal field of a request belongs in this list too.
 */
import type { AppContext } from '../kernel/context.js';
import type { MemberExport } from '../kernel/module.js';

export async function exportCustomRequestData(ctx: AppContext, userId: string): Promise<Partial<MemberExport>> {
  const requests = await ctx.db.all<Record<string, unknown>>(
    `SELECT id, status, description, amount_sats AS "amountSats", payment_id AS "paymentId", video_id AS "videoId",
            decline_reason AS "declineReason", requested_at AS "requestedAt", updated_at AS "updatedAt"
       FROM custom_requests WHERE user_id = ? ORDER BY requested_at, id`,
    [userId],
  );
  return { customRequests: requests.map((r) => ({ ...r, amountSats: r.amountSats === null ? null : Number(r.amountSats) })) };
}
