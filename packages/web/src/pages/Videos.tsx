/**
 * `/videos`: 'Premium Videos' with four category cards, the catalog (search, category filter, pages)
 * — or the four configured featured videos while the catalog is empty — and a join call to action.
 * Which of the two it shows is known once the catalog's categories have answered; until then a
 * spinner (drawing one and swapping it for the other dropped a keyboard user's focus). The 'Behind
 * the Scenes' card lists the videos exclusive to the annual plan (`?exclusiveTo=annual`, issue 40).
 */
import { Button, FormField, Spinner } from '@members/ui';
import { planQualitySentence } from '@members/ui/entitlement';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { queries } from '../app/queries';
import { useSession } from '../app/session';
import { useSite } from '../app/site';
import { LiveNow } from '../live/LiveNow';
import { CatalogVideoCard, FeaturedGrid, useFeatured } from './featured';

const PAGE_SIZE = 12;

/** The fourth card, always there: the annual plan's behind-the-scenes videos. */
const BEHIND_THE_SCENES = 'Behind the Scenes';

const STATIC_CATEGORIES = [
  { name: 'Exclusives', text: 'Scenes you will not find anywhere else.' },
  { name: 'Solo', text: 'Intimate solo sets from our models.' },
  { name: 'Premieres', text: 'The newest releases, every week.' },
];

export default function Videos() {
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const category = params.get('category') ?? '';
  const behindTheScenes = params.get('exclusiveTo') === 'annual';
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const [search, setSearch] = useState(q);
  const { loggedIn } = useSession();
  const site = useSite();
  const featured = useFeatured(4);
  const catalog = useQuery({
    ...queries.catalog.videoList({
      q,
      category,
      page,
      pageSize: PAGE_SIZE,
      sort: 'newest',
      ...(behindTheScenes ? { exclusiveTo: 'annual' as const } : {}),
    }),
    placeholderData: keepPreviousData,
  });
  const all = useQuery({ ...queries.catalog.categories(), staleTime: 60_000 });
  const catalogCategories = [...new Set((all.data?.videos ?? []).flatMap((v) => v.categories ?? []))]
    .filter((name) => name !== BEHIND_THE_SCENES)
    .slice(0, 3);
  const hasCatalog = (all.data?.total ?? 0) > 0;
  const videos = catalog.data?.videos ?? [];
  const total = catalog.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));

  function update(next: Record<string, string>) {
    const p = new URLSearchParams(params);
    for (const [k, v] of Object.entries(next)) {
      if (v) p.set(k, v);
      else p.delete(k);
    }
    setParams(p);
  }

  const categories = catalogCategories.length ? catalogCategories.map((name) => ({ name, text: '' })) : STATIC_CATEGORIES;
  const heading = behindTheScenes ? `${BEHIND_THE_SCENES} videos` : category ? `${category} videos` : 'All videos';

  return (
    <div className="container section">
      <h1>Premium Videos</h1>
      <LiveNow />
      <section aria-labelledby="categories-title" className="section-tight">
        <h2 id="categories-title" className="visually-hidden">
          Categories
        </h2>
        <div className="category-grid">
          {categories.map((c) => {
            const active = category === c.name;
            return catalogCategories.length ? (
              <button
                key={c.name}
                type="button"
                className={`category-card${active ? ' active' : ''}`}
                aria-pressed={active}
                onClick={() => update({ category: active ? '' : c.name, exclusiveTo: '', page: '' })}
              >
                <strong>{c.name}</strong>
              </button>
            ) : (
              <div key={c.name} className="category-card">
                <strong>{c.name}</strong>
                <span className="muted">{c.text}</span>
              </div>
            );
          })}
          <button
            type="button"
            className={`category-card${behindTheScenes ? ' active' : ''}`}
            aria-pressed={behindTheScenes}
            onClick={() => update({ exclusiveTo: behindTheScenes ? '' : 'annual', category: '', page: '' })}
          >
            <strong>{BEHIND_THE_SCENES}</strong>
            <span className="muted">Candid moments from our shoots.</span>
          </button>
        </div>
      </section>

      {all.isPending ? (
        <Spinner label="Loading videos..." />
      ) : hasCatalog ? (
        <section aria-labelledby="catalog-title">
          <div className="catalog-head">
            <h2 id="catalog-title">{heading}</h2>
            <form
              aria-label="Search videos"
              className="search-form"
              onSubmit={(e) => {
                e.preventDefault();
                update({ q: search.trim(), page: '' });
              }}
            >
              <FormField label="Search videos" type="search" name="q" value={search} onChange={(e) => setSearch(e.target.value)} />
              <Button type="submit" variant="secondary">
                Search
              </Button>
            </form>
          </div>
          {catalog.isError && <p className="muted">{(catalog.error as Error).message}</p>}
          {videos.length === 0 && !catalog.isPending ? (
            <p className="muted">No videos match your search.</p>
          ) : (
            <div className="video-grid">
              {videos.map((v) => (
                <CatalogVideoCard key={v.id} video={v} subtitle={v.modelName ?? undefined} />
              ))}
            </div>
          )}
          {pages > 1 && (
            <nav className="pager" aria-label="Pages">
              <Button variant="secondary" size="sm" disabled={page <= 1} onClick={() => update({ page: String(page - 1) })}>
                Previous
              </Button>
              <span>
                Page {page} of {pages}
              </span>
              <Button variant="secondary" size="sm" disabled={page >= pages} onClick={() => update({ page: String(page + 1) })}>
                Next
              </Button>
            </nav>
          )}
        </section>
      ) : (
        <section aria-labelledby="featured-title">
          <h2 id="featured-title">Featured Videos</h2>
          <FeaturedGrid videos={featured} />
        </section>
      )}

      <section className="cta card center">
        <h2>Unlock every video</h2>
        <p>Members get unlimited access to the full library, with new videos every week. {planQualitySentence(site.media)}</p>
        {loggedIn ? (
          <Link className="btn btn-primary btn-lg" to="/subscription">
            Subscribe Now
          </Link>
        ) : (
          <Link className="btn btn-primary btn-lg" to="/register">
            JOIN NOW
          </Link>
        )}
      </section>
    </div>
  );
}
