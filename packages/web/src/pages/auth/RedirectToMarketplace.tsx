/** The redirect page: 'Redirecting to Premium Content...', then the external profile. */
import { useEffect } from 'react';
import { useSite, useSiteQuery } from '../../app/site';

export default function RedirectToMarketplace() {
  const site = useSite();
  const { data } = useSiteQuery();
  useEffect(() => {
    if (!data?.marketplaceProfileUrl) return;
    const t = setTimeout(() => window.location.assign(data.marketplaceProfileUrl), 1500);
    return () => clearTimeout(t);
  }, [data?.marketplaceProfileUrl]);
  return (
    <div className="container narrow section center">
      <h1>Redirecting to Premium Content...</h1>
      <div className="spinner" aria-hidden="true" />
      <p>
        <a className="btn btn-primary" href={site.marketplaceProfileUrl}>
          Continue to Marketplace
        </a>
      </p>
    </div>
  );
}
