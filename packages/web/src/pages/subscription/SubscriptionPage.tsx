/**
 * `/subscription`: 'Premium Membership' — 'Bitcoin Payments Only'. Tabs (Pricing Plans, My
 * Subscription), plan cards, the Bitcoin payment view, the success screen with the 5 s redirect.
 */
import { Alert, type PlanType, type SitePlan, type SubscriptionIntent } from '@members/ui';
import { SUBSCRIBING_NEEDS_APPROVAL } from '@members/ui/access';
import { useQuery } from '@tanstack/react-query';
import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { api } from '../../app/api';
import { queries } from '../../app/queries';
import { useSession } from '../../app/session';
import { useSite } from '../../app/site';
import { BitcoinPayment } from './BitcoinPayment';
import { MySubscription } from './MySubscription';
import { PlanCards } from './PlanCards';

export const SUCCESS_REDIRECT_MS = 5000;

type Tab = 'plans' | 'status';
type View = { kind: 'plans' } | { kind: 'pay'; planType: PlanType; intent: SubscriptionIntent } | { kind: 'success' };

/** The server's plans, shown from the site config until they arrive. */
function usePlans(): { monthly: SitePlan; annual: SitePlan } {
  const site = useSite();
  const q = useQuery({ ...queries.billing.plans(), staleTime: 5 * 60_000, retry: 1 });
  const find = (t: PlanType) => q.data?.find((p) => p.planType === t);
  return { monthly: find('monthly') ?? site.plans.monthly, annual: find('annual') ?? site.plans.annual };
}

function SuccessScreen() {
  const navigate = useNavigate();
  const [left, setLeft] = useState(SUCCESS_REDIRECT_MS / 1000);
  useEffect(() => {
    const t = setTimeout(() => navigate('/videos'), SUCCESS_REDIRECT_MS);
    const i = setInterval(() => setLeft((s) => Math.max(0, s - 1)), 1000);
    return () => {
      clearTimeout(t);
      clearInterval(i);
    };
  }, [navigate]);
  return (
    <div className="card center" role="status">
      <h2>Payment Submitted!</h2>
      <p>
        Thank you! Your Bitcoin payment was submitted and is awaiting verification. We verify payments manually within 24 hours, and your
        subscription activates as soon as it is verified.
      </p>
      <p className="muted">
        If your subscription is not active after 48 hours, please <Link to="/contact">contact support</Link>.
      </p>
      <p>Redirecting to videos in {left} seconds...</p>
    </div>
  );
}

export default function SubscriptionPage() {
  const { user, loggedIn, approved } = useSession();
  const site = useSite();
  const plans = usePlans();
  const navigate = useNavigate();
  // `?plan=annual` (an annual-only video's upgrade link): the pricing tab, that plan outlined.
  const [params] = useSearchParams();
  const asked = params.get('plan');
  const chosen: PlanType | null = asked === 'annual' || asked === 'monthly' ? asked : null;
  const [tab, setTab] = useState<Tab>(user?.subscriptionStatus === 'active' && !chosen ? 'status' : 'plans');
  const [view, setView] = useState<View>({ kind: 'plans' });
  const [busyPlan, setBusyPlan] = useState<PlanType | null>(null);
  const [error, setError] = useState<string | null>(null);
  const tabRefs = useRef<Record<Tab, HTMLButtonElement | null>>({ plans: null, status: null });

  async function select(planType: PlanType) {
    setError(null);
    if (!loggedIn || !user) {
      navigate('/login');
      return;
    }
    if (!approved) {
      setError(SUBSCRIBING_NEEDS_APPROVAL);
      return;
    }
    setBusyPlan(planType);
    try {
      const intent = await api.createSubscriptionIntent(planType);
      setView({ kind: 'pay', planType, intent });
    } catch (err) {
      setError((err as Error).message || 'Failed to start payment. Please try again.');
    } finally {
      setBusyPlan(null);
    }
  }

  function onTabKey(e: KeyboardEvent) {
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
    const next: Tab = tab === 'plans' ? 'status' : 'plans';
    setTab(next);
    tabRefs.current[next]?.focus();
  }

  const pricing = (
    <>
      {error && <Alert>{error}</Alert>}
      {view.kind === 'plans' && (
        <PlanCards plans={plans} loggedIn={loggedIn} approved={approved} busyPlan={busyPlan} onSelect={select} chosen={chosen} />
      )}
      {view.kind === 'pay' && user && (
        <BitcoinPayment
          planType={view.planType}
          plan={plans[view.planType]}
          intent={view.intent}
          userId={user.id}
          siteName={site.siteName}
          onBack={() => setView({ kind: 'plans' })}
          onSubmitted={() => setTimeout(() => setView({ kind: 'success' }), 800)}
        />
      )}
      {view.kind === 'success' && <SuccessScreen />}
    </>
  );

  return (
    <div className="container section subscription-page">
      <header className="center">
        <h1>Premium Membership</h1>
        <p className="subtitle">Bitcoin Payments Only</p>
      </header>
      {loggedIn ? (
        <>
          <div className="tabs" role="tablist" aria-label="Subscription" onKeyDown={onTabKey}>
            {(
              [
                ['plans', 'Pricing Plans'],
                ['status', 'My Subscription'],
              ] as const
            ).map(([id, label]) => (
              <button
                key={id}
                ref={(el) => {
                  tabRefs.current[id] = el;
                }}
                type="button"
                role="tab"
                id={`tab-${id}`}
                aria-selected={tab === id}
                aria-controls={`panel-${id}`}
                tabIndex={tab === id ? 0 : -1}
                className={`tab${tab === id ? ' active' : ''}`}
                onClick={() => setTab(id)}
              >
                {label}
              </button>
            ))}
          </div>
          <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
            {tab === 'plans' ? (
              pricing
            ) : (
              <MySubscription
                onShowPlans={() => setTab('plans')}
                onPayRenewal={(renewal) => {
                  // The renewal is a payment request like a plan's: the same payment view, on the pricing tab.
                  setView({ kind: 'pay', planType: renewal.planType, intent: renewal });
                  setTab('plans');
                }}
              />
            )}
          </div>
        </>
      ) : (
        pricing
      )}
    </div>
  );
}
