/** `/2257`: record-keeping compliance statement with the custodian of records. */
import { useSite } from '../../app/site';
import { StaticPage } from './StaticPage';

export default function Records2257() {
  const site = useSite();
  const c = site.custodianOfRecords;
  return (
    <StaticPage title="18 U.S.C. 2257 Record-Keeping Requirements Compliance Statement">
      <p>
        All models, actors, actresses and other persons who appear in any visual depiction of actual or simulated sexually explicit conduct
        appearing or otherwise contained on this website were over the age of eighteen (18) years at the time of the creation of such
        depictions.
      </p>
      <p>
        The records required pursuant to 18 U.S.C. § 2257 and 28 C.F.R. Part 75 for all materials contained on this website are kept by the
        following Custodian of Records:
      </p>
      <address className="card">
        <strong>{c.name}</strong>
        <br />
        {c.address}
        {c.email && (
          <>
            <br />
            <a href={`mailto:${c.email}`}>{c.email}</a>
          </>
        )}
      </address>
    </StaticPage>
  );
}
