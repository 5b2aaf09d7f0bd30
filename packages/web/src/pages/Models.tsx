/** `/models`: the three configured model cards; a broken image shows 'Image not available'. */
import { type SiteModel, StatusBadge } from '@members/ui';
import { useState } from 'react';
import { useSite } from '../app/site';

function ModelCard({ model, profileUrl }: { model: SiteModel; profileUrl: string }) {
  const [broken, setBroken] = useState(false);
  return (
    <article className="model-card">
      <div className="model-image">
        {broken || !model.imageUrl ? (
          <div className="image-missing">Image not available</div>
        ) : (
          <img src={model.imageUrl} alt={model.name} loading="lazy" onError={() => setBroken(true)} />
        )}
        <div className="video-badges">
          {model.badges.map((b) => (
            <StatusBadge key={b} tone={b === 'NEW' ? 'brand' : 'warning'}>
              {b}
            </StatusBadge>
          ))}
        </div>
      </div>
      <div className="model-body">
        <h2>{model.name}</h2>
        <p className="muted">{model.videoCount} videos</p>
        <p>{model.description}</p>
        <a
          className="btn btn-primary"
          href={profileUrl}
          target="_blank"
          rel="noopener noreferrer"
          aria-label={`View Profile of ${model.name}`}
        >
          View Profile
        </a>
      </div>
    </article>
  );
}

export default function Models() {
  const site = useSite();
  return (
    <div className="container section">
      <h1>Our Models</h1>
      {site.models.length === 0 ? (
        <p className="muted">Loading models...</p>
      ) : (
        <div className="model-grid">
          {site.models.map((m) => (
            <ModelCard key={m.name} model={m} profileUrl={site.marketplaceProfileUrl} />
          ))}
        </div>
      )}
    </div>
  );
}
