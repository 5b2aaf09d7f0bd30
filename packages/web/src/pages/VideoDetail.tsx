/**
 * `/videos/:id`: every field of the video, the shared access decision explained (blurred thumbnail,
 * reason, 'Subscribe to Watch', 'Upgrade to Annual' for an annual-only video, the date a scheduled one
 * comes to the viewer's plan, or 'Back to Videos'), 'More from {model}', and the secure player. An
 * admin plays every video here (the library's "Preview").
 */
import { Alert, Button, lazyScreen, Spinner, StatusBadge } from '@members/ui';
import { accessDecision } from '@members/ui/access';
import { qualityOfferLabel, qualityOffers } from '@members/ui/entitlement';
import { ANNUAL_UPGRADE_PATH, formatDate, formatDuration } from '@members/ui/format';
import { useQuery } from '@tanstack/react-query';
import { Suspense, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { useGeo } from '../app/geo';
import { queries } from '../app/queries';
import { useSite } from '../app/site';
import { useViewer } from '../app/viewer';
import { CatalogVideoCard, thumbnailOf } from './featured';

const SecurePlayer = lazyScreen(() => import('../player/SecurePlayer'));

function MoreFromModel({ model, excludeId }: { model: string; excludeId: string }) {
  const q = useQuery({
    ...queries.catalog.videoList({ model, pageSize: 9, sort: 'newest' }),
  });
  const others = (q.data?.videos ?? []).filter((v) => v.id !== excludeId).slice(0, 8);
  return (
    <section className="section-tight" aria-labelledby="more-title">
      <h2 id="more-title">More from {model}</h2>
      {q.isPending ? (
        <Spinner label="Loading related videos..." />
      ) : others.length === 0 ? (
        <p className="muted">Related videos will appear here.</p>
      ) : (
        <div className="video-grid">
          {others.map((v) => (
            <CatalogVideoCard key={v.id} video={v} />
          ))}
        </div>
      )}
    </section>
  );
}

export default function VideoDetail() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const viewer = useViewer();
  const site = useSite();
  const geo = useGeo();
  const [playing, setPlaying] = useState(false);
  const video = useQuery(queries.catalog.video(id));

  if (video.isPending) return <Spinner label="Loading video..." />;
  if (video.isError || !video.data) {
    return (
      <div className="container narrow section center">
        <h1>Video Not Found</h1>
        <p className="muted">{(video.error as Error | null)?.message || 'The requested video could not be found'}</p>
        <Button variant="secondary" onClick={() => navigate('/videos')}>
          Back to Videos
        </Button>
      </div>
    );
  }

  const v = video.data;
  const decision = accessDecision({ video: v, geo: { loading: geo.loading, blocked: geo.blocked }, user: viewer.user });
  // The annual-only rule needs the viewer's plan: until it is known, neither a refusal nor 'Watch Now'.
  const checkingPlan = viewer.loading && v.exclusiveTo === 'annual';
  const thumb = thumbnailOf(v);
  // The qualities this viewer's plan plays (what the stream answers them); taller ones with the plan that plays them.
  // An admin previews with the whole ladder (the stream gives them every rendition).
  const qualities = viewer.admin
    ? (v.qualities ?? [])
    : qualityOffers(v.qualities ?? [], { accessLevel: v.accessLevel, plan: viewer.entitledPlan }, site.media).map(qualityOfferLabel);

  return (
    <div className="container section video-detail">
      <div className="detail-grid">
        <div className={`detail-thumb${decision.allowed ? '' : ' denied'}`}>
          {thumb ? (
            <img src={thumb} alt={`Thumbnail of ${v.title}`} />
          ) : (
            <div className="video-thumb-fallback" aria-hidden="true">
              ▶
            </div>
          )}
          {!decision.allowed && decision.reason !== 'geo_loading' && !checkingPlan && (
            <div className="lock" aria-hidden="true">
              <svg width="56" height="56" viewBox="0 0 24 24" fill="#fff">
                <path d="M12 2a5 5 0 0 0-5 5v3H6a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-8a2 2 0 0 0-2-2h-1V7a5 5 0 0 0-5-5zm-3 8V7a3 3 0 1 1 6 0v3H9z" />
              </svg>
            </div>
          )}
        </div>
        <div className="detail-info">
          <div className="badge-row">
            <StatusBadge tone={v.accessLevel === 'free' ? 'success' : 'brand'}>{String(v.accessLevel).toUpperCase()}</StatusBadge>
          </div>
          <h1>{v.title}</h1>
          <dl className="details">
            <dt>Model</dt>
            <dd>{v.modelName || 'N/A'}</dd>
            <dt>Duration</dt>
            <dd>{formatDuration(v.duration)}</dd>
            <dt>Views</dt>
            <dd>{(v.viewCount ?? 0).toLocaleString('en-US')}</dd>
            <dt>Published</dt>
            <dd>{formatDate(v.publishedDate)}</dd>
            {qualities.length > 0 && (
              <>
                <dt>Qualities</dt>
                <dd>{qualities.join(', ')}</dd>
              </>
            )}
          </dl>
          {v.tags && v.tags.length > 0 && (
            <ul className="chips" aria-label="Tags">
              {v.tags.map((t) => (
                <li key={t} className="chip">
                  #{t}
                </li>
              ))}
            </ul>
          )}
          {v.categories && v.categories.length > 0 && (
            <ul className="chips" aria-label="Categories">
              {v.categories.map((c) => (
                <li key={c} className="chip chip-outline">
                  {c}
                </li>
              ))}
            </ul>
          )}
          {v.description && <p className="description">{v.description}</p>}

          <div className="detail-actions">
            {checkingPlan ? (
              <Spinner label="Checking your plan..." />
            ) : decision.allowed ? (
              <Button size="lg" onClick={() => setPlaying(true)}>
                Watch Now
              </Button>
            ) : decision.reason === 'geo_loading' ? (
              <Spinner label="Checking availability in your region..." />
            ) : (
              <>
                <Alert tone="warning">{decision.message}</Alert>
                {decision.remedy === 'subscribe' &&
                  (decision.reason === 'annual_plan_required' ? (
                    <Link className="btn btn-primary btn-lg" to={ANNUAL_UPGRADE_PATH}>
                      Upgrade to Annual
                    </Link>
                  ) : (
                    <Link className="btn btn-primary btn-lg" to="/subscription">
                      Subscribe to Watch
                    </Link>
                  ))}
                {decision.remedy === 'back' && (
                  <Link className="btn btn-secondary" to="/videos">
                    Back to Videos
                  </Link>
                )}
                {decision.remedy === 'login' && (
                  <Link className="btn btn-primary" to="/login">
                    Sign In
                  </Link>
                )}
              </>
            )}
            {geo.error && <p className="muted small">{geo.error}</p>}
          </div>
        </div>
      </div>

      {v.modelName && <MoreFromModel model={v.modelName} excludeId={v.id} />}

      {playing && (
        <Suspense fallback={<Spinner label="Loading player..." />}>
          <SecurePlayer video={v} onClose={() => setPlaying(false)} />
        </Suspense>
      )}
    </div>
  );
}
