/**
 * Who is looking at the catalog, as the access decision and the catalog cards need it: the signed-in
 * user with the plan of their active subscription (the annual-only videos ask for it, issue 40), and
 * whether they are an admin (who previews everything).
 */
import { type AccessUser, hasActiveSubscription } from '@members/ui/access';
import type { EntitledPlan } from '@members/ui/entitlement';
import { useQuery } from '@tanstack/react-query';
import { queries } from './queries';
import { useSession } from './session';

export interface Viewer {
  /** The user for accessDecision: the stored user and `plan`; null when signed out. */
  user: (AccessUser & { role?: string | null }) | null;
  admin: boolean;
  /** 'monthly' | 'annual' while the subscription is active, else null. */
  plan: string | null;
  /**
   * The plan the viewer's streams are capped by (@members/ui/entitlement), as the API decides it
   * (streaming/viewing.service.ts renditionEntitlement): `plan`, or monthly for an active subscription
   * without a billing row (an admin may grant one); null for a visitor, a member without a plan, and
   * until the subscription answers (the pages claim the smaller cap for that moment, never a larger one).
   */
  entitledPlan: EntitledPlan | null;
  /** The subscription has not answered yet (the plan is unknown). */
  loading: boolean;
}

export function useViewer(): Viewer {
  const { user, loggedIn, admin } = useSession();
  const subscription = useQuery({ ...queries.billing.subscription(), enabled: loggedIn && !admin, staleTime: 60_000 });
  const sub = subscription.data;
  const plan = sub && sub.status === 'active' ? sub.planType : null;
  const granted = !subscription.isPending && !plan && hasActiveSubscription(user);
  const entitledPlan: EntitledPlan | null = plan === 'annual' || plan === 'monthly' ? plan : granted ? 'monthly' : null;
  return {
    user: user ? { ...user, plan } : null,
    admin,
    plan,
    entitledPlan,
    loading: loggedIn && !admin && subscription.isPending,
  };
}
