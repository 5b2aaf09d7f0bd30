/** `/tos`: terms of service, last updated today. */
import { useSite } from '../../app/site';
import { StaticPage } from './StaticPage';

export default function Terms() {
  const site = useSite();
  return (
    <StaticPage title="Terms of Service" lastUpdated>
      <h2>1. Eligibility</h2>
      <p>You must be at least 18 years old, and of legal age to view adult content where you live, to use {site.siteName}.</p>
      <h2>2. Accounts</h2>
      <p>
        Every account is manually reviewed and may be approved or rejected at our discretion. Keep your password private; you are
        responsible for activity on your account.
      </p>
      <h2>3. Subscriptions and payment</h2>
      <p>
        Subscriptions are paid in Bitcoin only and activate after manual verification of your payment. You may cancel at any time; access
        continues until the end of the paid period. Payments are not refundable except where the law requires.
      </p>
      <h2>4. Content use</h2>
      <p>
        Videos are for your personal viewing only. Downloading, recording, sharing or redistributing any content is prohibited and may end
        your membership and lead to legal action.
      </p>
      <h2>5. Termination</h2>
      <p>We may suspend or close accounts that break these terms.</p>
      <h2>6. Contact</h2>
      <p>Questions about these terms: see our contact page.</p>
    </StaticPage>
  );
}
