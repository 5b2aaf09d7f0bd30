/** `/contact`: the external profile first, guidance for business and technical requests, 24-48 hours. */
import { useSite } from '../../app/site';
import { StaticPage } from './StaticPage';

export default function Contact() {
  const site = useSite();
  return (
    <StaticPage title="Contact Us">
      <div className="card">
        <h2>Primary contact</h2>
        <p>The fastest way to reach us is through our official marketplace profile.</p>
        <a className="btn btn-primary" href={site.marketplaceProfileUrl} target="_blank" rel="noopener noreferrer">
          Message us on our profile
        </a>
        {site.contactEmail && (
          <p>
            You can also email <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>.
          </p>
        )}
      </div>
      <h2>Business inquiries</h2>
      <ul>
        <li>Collaboration and content partnership proposals</li>
        <li>Press and media requests</li>
        <li>Affiliate and promotion opportunities</li>
        <li>Include your company name, a short description and how to reach you</li>
      </ul>
      <h2>Technical support</h2>
      <ul>
        <li>Login, registration and account approval questions</li>
        <li>Bitcoin payments and subscription status (include your transaction hash)</li>
        <li>Video playback problems (tell us your browser and device)</li>
        <li>Include the email address of your account in every request</li>
      </ul>
      <p>
        <strong>Response time:</strong> we answer every message within 24-48 hours.
      </p>
    </StaticPage>
  );
}
