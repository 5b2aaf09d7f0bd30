/** `/registration-success`: the three steps after registering. */
import { Link } from 'react-router-dom';

export default function RegistrationSuccess() {
  return (
    <div className="container narrow section">
      <div className="card">
        <h1>Registration Successful!</h1>
        <p>Thank you for registering. Here is what happens next:</p>
        <ol className="steps">
          <li>
            <h2>Admin review</h2>
            <p>Our team manually reviews every new account.</p>
          </li>
          <li>
            <h2>Email notification</h2>
            <p>You will receive an email once your account has been reviewed, usually within about 24-48 hours.</p>
          </li>
          <li>
            <h2>Access</h2>
            <p>After approval, sign in and choose a subscription to unlock premium videos.</p>
          </li>
        </ol>
        <p className="muted">Don't see our email? Please check your spam or junk folder.</p>
        <p className="muted">Subscriptions are paid in Bitcoin only.</p>
        <div className="button-row">
          <Link className="btn btn-primary" to="/login">
            Go to Login
          </Link>
          <Link className="btn btn-secondary" to="/">
            Back to Home
          </Link>
          <Link className="btn btn-ghost" to="/contact">
            Contact Support
          </Link>
        </div>
      </div>
    </div>
  );
}
