/**
 * `/dmca`: DMCA policy text. What marks a stream is said as it is: the forensic mark in every stream
 * only when the server makes it (FORENSIC_WATERMARK, GET /api/site `forensicWatermark`), else the
 * player's visible overlay (the member's e-mail and account number, moving every few seconds).
 */
import { useSite } from '../../app/site';
import { StaticPage } from './StaticPage';

/** Said only when streams carry the forensic mark (docs/leak-tracing.md). */
export const DMCA_FORENSIC_SENTENCE = 'Every stream carries a personal watermark that identifies the account it was played from.';
/** What is true without it: the overlay the player draws (player/SecurePlayer.tsx, the stream's `watermarkText`). */
export const DMCA_OVERLAY_SENTENCE =
  "While a video plays, the player shows the member's e-mail address and account number over the picture, moving every few seconds.";

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
      <p>We actively pursue pirated copies of our videos. {site.forensicWatermark ? DMCA_FORENSIC_SENTENCE : DMCA_OVERLAY_SENTENCE}</p>
      {site.contactEmail && (
        <p>
          Send notices to <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>.
        </p>
      )}
    </StaticPage>
  );
}
