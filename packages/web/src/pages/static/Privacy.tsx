/** `/privacy`: privacy policy, last updated today. */
import { Link } from 'react-router-dom';
import { DEFAULT_PRIVACY, useSite } from '../../app/site';
import { StaticPage } from './StaticPage';

export default function Privacy() {
  const site = useSite();
  const privacy = site.privacy ?? DEFAULT_PRIVACY;
  return (
    <StaticPage title="Privacy Policy" lastUpdated>
      <p>This policy explains what {site.siteName} collects about you, why, and the choices you have.</p>
      <h2>What we collect</h2>
      <ul>
        <li>Account data: your name, email address and date of birth (to verify that you are an adult).</li>
        <li>Approximate location derived from your IP address, to comply with regional laws on adult content.</li>
        <li>Payment data: the Bitcoin amount and, if you give it, the transaction hash. We never hold your wallet keys.</li>
        <li>Viewing data: which videos you watch and for how long, to count views and protect our content.</li>
      </ul>
      <h2>How we use it</h2>
      <p>
        To run your account, review registrations, verify payments, deliver videos, prevent fraud and piracy, and meet legal obligations.
      </p>
      <h2>Storage in your browser</h2>
      <p>
        We store your session, your age confirmation and your region check in your browser's local storage, and a secure cookie to keep you
        signed in.
      </p>
      <h2>Your rights</h2>
      <p>
        You can see, correct and take your data with you, and delete your account, yourself from your{' '}
        <Link to="/account">account settings</Link> once you are signed in: change your name, email address or password, download a copy of
        everything we store about you (as a file for other services, or a page you can read), or delete your account. You can also ask
        support ({site.contactEmail || 'see the contact page'}) to do it for you.
      </p>
      <h2>When you delete your account</h2>
      <p>
        Your personal data (name, email address, date of birth and the location we derived from your IP address) is stored encrypted with a
        key that belongs to you alone. Deleting your account destroys that key: from that moment the data can no longer be read by anyone,
        us included, anywhere on the site or in its database. Your sessions end at once and your email address is free again.
      </p>
      <p>
        We keep the record of your payments (amounts, dates, plan and Bitcoin transaction hashes) for {privacy.paymentRecordRetentionYears}{' '}
        years ({privacy.retentionBasis}). These records no longer show who you were: they name an “erased member” and a short number only.
      </p>
      <p>
        Backups are kept for {privacy.backupRetentionDays} days and server logs for {privacy.logRetentionDays} days; after that they are
        overwritten. A backup made before your deletion still holds your key until it expires; it is stored apart from the secret that
        unlocks it, and if we ever have to restore one, we erase you again before the site goes back online.
      </p>
      <p>
        One limit, in plain words: for accounts created before we began encrypting personal data, the first records of the account were
        written without that encryption into our tamper-proof history, which cannot be edited. Deleting such an account removes the data
        from everything the site shows and uses, but those first records still hold it.
      </p>
    </StaticPage>
  );
}
