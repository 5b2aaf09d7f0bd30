/** 404 and the /error index: 'Oops!'. */
import { Link } from 'react-router-dom';
import { ErrorIllustration } from '../RouteError';

export default function NotFound() {
  return (
    <div className="error-page">
      <ErrorIllustration />
      <h1>Oops!</h1>
      <p>We can't find that page.</p>
      <Link className="btn btn-primary" to="/">
        Return Home
      </Link>
    </div>
  );
}
