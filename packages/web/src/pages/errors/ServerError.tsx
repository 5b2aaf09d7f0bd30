/** The 500 page: 'System Error'. */
import { Link } from 'react-router-dom';
import { ErrorIllustration } from '../RouteError';

export default function ServerError() {
  return (
    <div className="error-page">
      <ErrorIllustration />
      <h1>System Error</h1>
      <p>Something went wrong! Please try again later.</p>
      <Link className="btn btn-primary" to="/home">
        Return Home
      </Link>
    </div>
  );
}
