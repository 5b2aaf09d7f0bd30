/**
 * A video tile: thumbnail, title, duration, badges and a link to the detail page. The link element
 * is injectable (react-router's Link in the web app, a plain anchor elsewhere). A locked tile (a video
 * the viewer's plan does not open yet) dims its thumbnail under a lock; `footer` says why and how.
 */
import { type ComponentType, type ReactNode, useState } from 'react';
import { StatusBadge } from './StatusBadge';

export interface LinkLikeProps {
  to: string;
  className?: string;
  children?: ReactNode;
  'aria-label'?: string;
}

function Anchor({ to, ...rest }: LinkLikeProps) {
  return <a href={to} {...rest} />;
}

export interface VideoCardProps {
  title: string;
  href: string;
  duration: string;
  thumbnailUrl?: string | null;
  badges?: string[];
  subtitle?: ReactNode;
  actionLabel?: string;
  linkComponent?: ComponentType<LinkLikeProps>;
  /** The viewer cannot watch it (yet): the thumbnail is dimmed under a lock. */
  locked?: boolean;
  /** Below the action: e.g. "Coming to your plan on {date}" or an upgrade link. */
  footer?: ReactNode;
}

export function VideoCard({
  title,
  href,
  duration,
  thumbnailUrl,
  badges = [],
  subtitle,
  actionLabel = 'Watch',
  linkComponent: L = Anchor,
  locked = false,
  footer,
}: VideoCardProps) {
  const [broken, setBroken] = useState(false);
  return (
    <article className={`video-card${locked ? ' locked' : ''}`}>
      <div className="video-thumb">
        {thumbnailUrl && !broken ? (
          <img src={thumbnailUrl} alt="" loading="lazy" onError={() => setBroken(true)} />
        ) : (
          <div className="video-thumb-fallback" aria-hidden="true">
            ▶
          </div>
        )}
        {locked && (
          <span className="video-lock" aria-hidden="true">
            🔒
          </span>
        )}
        <span className="video-duration">{duration}</span>
        {badges.length > 0 && (
          <div className="video-badges">
            {badges.map((b) => (
              <StatusBadge key={b} tone="brand">
                {b}
              </StatusBadge>
            ))}
          </div>
        )}
      </div>
      <div className="video-body">
        <h3 className="video-title">{title}</h3>
        {subtitle && <div className="video-sub">{subtitle}</div>}
        <L to={href} className="btn btn-primary btn-sm" aria-label={`${actionLabel}: ${title}`}>
          {actionLabel}
        </L>
        {footer && <div className="video-footer">{footer}</div>}
      </div>
    </article>
  );
}
