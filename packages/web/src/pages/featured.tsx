/**
 * Featured videos for the home and /videos pages: the newest from the real catalog when it has
 * videos, with the badges true of each for the viewer (featuredBadges: NEW for 14 days, the real top
 * quality, marked with the plan that plays it when the viewer's does not),
 * else the configured featured list (spec §2 "hard-coded" cards, badges as the operator wrote them).
 * Nothing is drawn until the catalog has answered: cards drawn first and replaced by the answer take
 * a keyboard user's focus with them (and move the link under a pointer), so Enter goes nowhere.
 */
import { type FeaturedVideo, Spinner, type Video, VideoCard } from '@members/ui';
import { ANNUAL_UPGRADE_PATH, type BadgeViewer, catalogCardState, featuredBadges, formatDuration } from '@members/ui/format';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { queries } from '../app/queries';
import { useSite } from '../app/site';
import { useViewer } from '../app/viewer';

export function thumbnailOf(v: Pick<Video, 'thumbnailPath'>): string {
  return v.thumbnailPath;
}

/** Who reads the cards: their plan and the site's quality caps (topQualityBadge). */
function useBadgeViewer(): BadgeViewer {
  return { plan: useViewer().entitledPlan, media: useSite().media };
}

/**
 * A catalog video as a card linking to its detail page, with its access level and its top quality for
 * this viewer as badges; to a viewer not on the annual plan a behind-the-scenes video is locked with the
 * "Annual plan" badge and an upgrade link, and a video their plan gets later says "Coming to your plan on {date}".
 */
export function CatalogVideoCard({ video, subtitle }: { video: Video; subtitle?: string }) {
  const viewer = useViewer();
  const card = catalogCardState(video, { ...viewer, media: useSite().media });
  return (
    <VideoCard
      title={video.title}
      href={`/videos/${video.id}`}
      duration={formatDuration(video.duration)}
      thumbnailUrl={thumbnailOf(video)}
      badges={card.badges}
      subtitle={subtitle}
      linkComponent={Link}
      locked={card.lock !== null}
      footer={
        card.lock === 'annual_plan' ? (
          <Link to={ANNUAL_UPGRADE_PATH} aria-label={`Upgrade to the annual plan to watch ${video.title}`}>
            Upgrade to the annual plan
          </Link>
        ) : (
          card.note && <span className="muted">{card.note}</span>
        )
      }
    />
  );
}

/** The featured cards, or undefined while the catalog has not answered yet (a failed answer: the configured ones). */
export function useFeatured(count = 4): FeaturedVideo[] | undefined {
  const site = useSite();
  const viewer = useBadgeViewer();
  const catalog = useQuery({
    ...queries.catalog.videoList({ pageSize: count, page: 1, sort: 'newest' }),
    retry: 1,
  });
  if (catalog.isPending) return undefined;
  const videos = catalog.data?.videos ?? [];
  if (videos.length) {
    const now = new Date();
    return videos.slice(0, count).map((v) => ({
      id: v.id,
      title: v.title,
      duration: formatDuration(v.duration),
      thumbnailUrl: thumbnailOf(v),
      // Only what is true of this video for this viewer: NEW while recent, its real top rendition (never a blanket '4K').
      badges: featuredBadges(v, now, viewer),
    }));
  }
  return site.featuredVideos.slice(0, count);
}

export function FeaturedGrid({ videos }: { videos: FeaturedVideo[] | undefined }) {
  if (!videos) return <Spinner label="Loading videos..." />;
  if (!videos.length) return <p className="muted">New videos are on their way.</p>;
  return (
    <div className="video-grid">
      {videos.map((v) => (
        <VideoCard
          key={v.id}
          title={v.title}
          href={`/videos/${v.id}`}
          duration={v.duration}
          thumbnailUrl={v.thumbnailUrl}
          badges={v.badges}
          linkComponent={Link}
        />
      ))}
    </div>
  );
}

/** 'JOIN NOW' style call to action to the external marketplace profile. */
export function JoinButton({ label = 'JOIN NOW', size = 'lg' }: { label?: string; size?: 'md' | 'lg' }) {
  const site = useSite();
  return (
    <a className={`btn btn-primary btn-${size}`} href={site.marketplaceProfileUrl} target="_blank" rel="noopener noreferrer">
      {label}
    </a>
  );
}
