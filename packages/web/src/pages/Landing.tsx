/**
 * `/`: the landing page for visitors; signed-in users go to /videos. Its quality point is computed
 * from the site's `media` caps (planQualitySentence): 4K is the annual plan's, and only on videos
 * shot in 4K (docs/spec-departures.md).
 */
import { planQualitySentence, uhdPlan } from '@members/ui/entitlement';
import { Navigate } from 'react-router-dom';
import { useSession } from '../app/session';
import { useSite } from '../app/site';
import { FeaturedGrid, JoinButton, useFeatured } from './featured';

export default function Landing() {
  const { loggedIn } = useSession();
  const site = useSite();
  const featured = useFeatured(4);
  if (loggedIn) return <Navigate to="/videos" replace />;
  const uhd = uhdPlan(site.media);
  return (
    <div className="landing">
      <section className="hero">
        <div className="container">
          <p className="eyebrow">Exclusive 18+ content</p>
          <h1>{site.siteName}</h1>
          <p className="hero-lead">Premium videos, new releases every week, available only to members.</p>
          <div className="hero-actions">
            <JoinButton />
            <a className="btn btn-ghost btn-lg" href="#featured">
              See featured videos
            </a>
          </div>
        </div>
      </section>
      <section id="featured" className="container section" aria-labelledby="featured-title">
        <h2 id="featured-title">Featured Videos</h2>
        <FeaturedGrid videos={featured} />
      </section>
      <section className="container section" aria-labelledby="why-title">
        <h2 id="why-title">Why join?</h2>
        <ul className="value-points">
          <li>
            <h3>{uhd ? `4K on the ${uhd} plan` : `Up to ${site.media.maxHeightByPlan.annual}p`}</h3>
            <p>{planQualitySentence(site.media)}</p>
          </li>
          <li>
            <h3>Weekly Updates</h3>
            <p>Fresh exclusive videos added every week.</p>
          </li>
          <li>
            <h3>Exclusive Access</h3>
            <p>Content you will not find anywhere else, for members only.</p>
          </li>
        </ul>
        <div className="center">
          <JoinButton label="JOIN NOW" />
        </div>
      </section>
    </div>
  );
}
