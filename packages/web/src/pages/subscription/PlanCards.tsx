/**
 * The two plan cards; the button text follows the visitor's state (spec §2). The quality lines are
 * made true for each plan from the site's `media` caps (planFeatures): '4K ultra HD access' only on
 * a plan that plays 2160p, and then 'on 4K videos'.
 */
import { Button, type PlanType, type SitePlan, StatusBadge } from '@members/ui';
import { planFeatures } from '@members/ui/entitlement';
import { formatUsd } from '@members/ui/format';
import { formatBtc } from '@members/ui/money';
import { useSite } from '../../app/site';

export interface PlanCardsProps {
  plans: { monthly: SitePlan; annual: SitePlan };
  loggedIn: boolean;
  approved: boolean;
  busyPlan: PlanType | null;
  onSelect(planType: PlanType): void;
}

export function planButtonText(loggedIn: boolean, approved: boolean): string {
  if (!loggedIn) return 'Sign In to Subscribe';
  if (!approved) return 'Awaiting Approval';
  return 'Select Plan';
}

export function PlanCards({ plans, loggedIn, approved, busyPlan, onSelect }: PlanCardsProps) {
  const { media } = useSite();
  const entries: [PlanType, SitePlan, string][] = [
    ['monthly', plans.monthly, 'per month'],
    ['annual', plans.annual, 'per year'],
  ];
  return (
    <div className="plan-grid">
      {entries.map(([type, plan, period]) => (
        <article key={type} className={`plan-card${plan.mostPopular ? ' popular' : ''}`} aria-labelledby={`plan-${type}`}>
          {plan.mostPopular && (
            <StatusBadge tone="brand" className="popular-badge">
              MOST POPULAR
            </StatusBadge>
          )}
          <h3 id={`plan-${type}`}>{plan.name}</h3>
          <div className="plan-price">
            <span className="btc">{formatBtc(plan.btcPrice)}</span>
            <span className="muted">
              ≈ {formatUsd(plan.usdPrice)} {period}
            </span>
          </div>
          {plan.formerBtcPrice && (
            <p className="former-price">
              <s>
                {formatBtc(plan.formerBtcPrice)}
                {plan.formerUsdPrice ? ` (≈ ${formatUsd(plan.formerUsdPrice)})` : ''}
              </s>{' '}
              {plan.savingsText && <strong className="savings">{plan.savingsText}</strong>}
            </p>
          )}
          <ul className="features">
            {planFeatures(plan.features, type, media).map((f) => (
              <li key={f}>✓ {f}</li>
            ))}
          </ul>
          <Button
            block
            size="lg"
            busy={busyPlan === type}
            busyLabel="Preparing payment..."
            disabled={busyPlan !== null}
            onClick={() => onSelect(type)}
          >
            {planButtonText(loggedIn, approved)}
          </Button>
        </article>
      ))}
    </div>
  );
}
