/**
 * `/blocked`: where a 403 lands (app/api.ts, with the refusal's code as `?reason=`); names the real
 * reason: the region (the spec's sentence and the laws where the visitor is), a suspension, a
 * pending account, a page the account may not see, or — for a reason it has no words for — only
 * what is true of any refusal.
 */
import { Link, useSearchParams } from 'react-router-dom';
import { useGeo } from '../app/geo';
import { blockedReason } from './blockedReason';

export default function Blocked() {
  const [params] = useSearchParams();
  const reason = blockedReason(params.get('reason'));
  const geo = useGeo();
  const where = [geo.result?.region, geo.result?.country].filter(Boolean).join(', ');
  return (
    <div className="container narrow section">
      <div className="card center">
        <h1>Access Restricted</h1>
        <p>{reason.sentence}</p>
        {reason.kind === 'region' ? (
          <p className="muted">
            Laws where you are{where ? ` (${where})` : ''} restrict access to adult content or require an age verification we cannot
            perform, so this content or action is not available to you. If you believe this is a mistake, please contact support.
          </p>
        ) : (
          <p className="muted">If you believe this is a mistake, please contact support.</p>
        )}
        <div className="button-row center">
          <Link className="btn btn-primary" to="/">
            Return Home
          </Link>
          <Link className="btn btn-ghost" to="/contact">
            Contact Support
          </Link>
        </div>
      </div>
    </div>
  );
}
