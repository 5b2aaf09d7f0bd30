/** `/privacy`: privacy policy, last updated today. */
import { useSite } from '../../app/site';
import { StaticPage } from './StaticPage';

export default function Privacy() {
  const site = useSite();
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
      <p>You can ask us for a copy of your data, to correct it, or to delete your account by contacting support.</p>
    </StaticPage>
  );
}
