/**
 * Who is looking at the catalog, as the access decision and the catalog cards need it: the signed-in
 * user with the plan of their active subscription (the annual-only videos ask for it, issue 40), and
 * whether they are an admin (who previews everything).
 */
import type { AccessUser } from '@members/ui/access';
import { useQuery } from '@tanstack/react-query';
import { queries } from './queries';
import { useSession } from './session';

export interface Viewer {
  /** The user for accessDecision: the stored user and `plan`; null when signed out. */
  user: (AccessUser & { role?: string | null }) | null;
  admin: boolean;
  /** 'monthly' | 'annual' while the subscription is active, else null. */
  plan: string | null;
  /** The subscription has not answered yet (the plan is unknown). */
  loading: boolean;
}

export function useViewer(): Viewer {
  const { user, loggedIn, admin } = useSession();
  const subscription = useQuery({ ...queries.billing.subscription(), enabled: loggedIn && !admin, staleTime: 60_000 });
  const sub = subscription.data;
  const plan = sub && sub.status === 'active' ? sub.planType : null;
  return {
    user: user ? { ...user, plan } : null,
    admin,
    plan,
    loading: loggedIn && !admin && subscription.isPending,
  };
}
