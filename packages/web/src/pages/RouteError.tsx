/** A render error anywhere below the layout shows the 500 page (eagerly bundled: it must not need a fetch). */
import { Link } from 'react-router-dom';

export function RouteError() {
  return (
    <main className="error-page">
      <ErrorIllustration />
      <h1>System Error</h1>
      <p>Something went wrong! Please try again later.</p>
      <Link className="btn btn-primary" to="/home" reloadDocument>
        Return Home
      </Link>
    </main>
  );
}

export function ErrorIllustration() {
  return (
    <svg className="error-illustration" viewBox="0 0 200 160" role="img" aria-label="Illustration: a broken film reel">
      <rect x="20" y="30" width="160" height="100" rx="12" fill="#1f1f26" stroke="#e91e63" strokeWidth="4" />
      <circle cx="70" cy="80" r="26" fill="none" stroke="#e91e63" strokeWidth="4" />
      <circle cx="130" cy="80" r="26" fill="none" stroke="#e91e63" strokeWidth="4" />
      <path d="M92 40 L108 120" stroke="#0e0e11" strokeWidth="8" />
      <circle cx="70" cy="80" r="6" fill="#e91e63" />
      <circle cx="130" cy="80" r="6" fill="#e91e63" />
    </svg>
  );
}
