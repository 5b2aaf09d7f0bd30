/** `/blocked`: where a 403 lands; explains the region block. */
import { Link } from 'react-router-dom';
import { useGeo } from '../app/geo';

export default function Blocked() {
  const geo = useGeo();
  const where = [geo.result?.region, geo.result?.country].filter(Boolean).join(', ');
  return (
    <div className="container narrow section">
      <div className="card center">
        <h1>Access Restricted</h1>
        <p>Content not available in your region.</p>
        <p className="muted">
          Laws where you are{where ? ` (${where})` : ''} restrict access to adult content or require an age verification we cannot perform,
          so this content or action is not available to you. If you believe this is a mistake, please contact support.
        </p>
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
