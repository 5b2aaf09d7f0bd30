/** `/dmca`: DMCA policy text. */
import { useSite } from '../../app/site';
import { StaticPage } from './StaticPage';

export default function Dmca() {
  const site = useSite();
  return (
    <StaticPage title="DMCA Policy">
      <p>
        {site.siteName} respects the intellectual property rights of others and expects its users to do the same. All content on this site
        is protected by copyright. Unauthorised copying, recording, redistribution or publication is prohibited.
      </p>
      <h2>Reporting infringement</h2>
      <p>If you believe that your copyrighted work has been copied in a way that constitutes infringement, send a notice containing:</p>
      <ol>
        <li>A physical or electronic signature of the copyright owner or a person authorised to act on their behalf;</li>
        <li>Identification of the copyrighted work claimed to have been infringed;</li>
        <li>Identification of the material that is claimed to be infringing and where it is located;</li>
        <li>Your contact information: address, telephone number and email address;</li>
        <li>A statement that you have a good faith belief that the use is not authorised by the copyright owner, its agent or the law;</li>
        <li>A statement, under penalty of perjury, that the information in the notice is accurate and that you are authorised to act.</li>
      </ol>
      <h2>Our content found elsewhere</h2>
      <p>
        We actively pursue pirated copies of our videos. Every stream carries a personal watermark that identifies the account it was played
        from.
      </p>
      {site.contactEmail && (
        <p>
          Send notices to <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>.
        </p>
      )}
    </StaticPage>
  );
}
