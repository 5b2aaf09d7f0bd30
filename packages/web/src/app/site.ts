/**
 * The brand's public configuration from GET /api/site (siteName, models, plans, featured videos,
 * custodian of records...). Until it answers — or if it never does — pages render from a neutral
 * fallback carrying the spec's constants, so nothing waits on it.
 */
import type { PrivacyInfo, SiteInfo } from '@members/ui/api';
import { type BrandPalette, brandPalette, DEFAULT_BRAND } from '@members/ui/theme';
import { useQuery } from '@tanstack/react-query';
import { queries } from './queries';

/** The site config's `privacy` defaults (site.config.example.json), for the policy page until /api/site answers. */
export const DEFAULT_PRIVACY: PrivacyInfo = {
  paymentRecordRetentionYears: 10,
  retentionBasis: 'statutory retention of accounting records',
  backupRetentionDays: 30,
  logRetentionDays: 14,
};

/** The default brand's palette: what styles.css holds until /api/site answers. */
const defaultPalette = brandPalette({ brand: DEFAULT_BRAND });
const DEFAULT_PALETTE: BrandPalette = defaultPalette.ok
  ? defaultPalette.palette
  : { brand: DEFAULT_BRAND, onBrand: '#000000', brandText: '#ee4d84', brandHover: '#eb3573' };

export const FALLBACK_SITE: SiteInfo = {
  siteName: 'Members',
  marketplaceProfileUrl: '#',
  models: [],
  custodianOfRecords: { name: 'Custodian of Records', address: '', email: '' },
  contactEmail: '',
  bitcoin: { explorerTxUrl: 'https://mempool.space/tx/{txid}' },
  plans: {
    monthly: {
      name: 'Monthly Premium',
      btcPrice: '0.0005',
      usdPrice: 29.99,
      mostPopular: false,
      features: ['HD video access', 'Exclusive content', 'Live chat access', 'Mobile and desktop streaming', 'Cancel anytime'],
    },
    annual: {
      name: 'Annual Premium',
      btcPrice: '0.005',
      usdPrice: 299.99,
      formerBtcPrice: '0.006',
      formerUsdPrice: 359.88,
      savingsText: 'Save about $60 a year',
      mostPopular: true,
      features: [
        'HD video access',
        'Exclusive content',
        'Live chat access',
        'Mobile and desktop streaming',
        'Cancel anytime',
        '4K ultra HD access',
        'VIP chat priority',
        'Exclusive behind-the-scenes',
        'Custom video requests',
      ],
    },
  },
  featuredVideos: [],
  privacy: DEFAULT_PRIVACY,
  theme: DEFAULT_PALETTE,
  releases: { delayDaysByPlan: { monthly: 0, annual: 0 }, freeDelayDays: 0 },
};

export function useSiteQuery() {
  return useQuery({ ...queries.catalog.site(), staleTime: Number.POSITIVE_INFINITY, retry: 1 });
}

/** The site config, or the fallback while loading / when unavailable. */
export function useSite(): SiteInfo {
  const { data } = useSiteQuery();
  if (!data) return FALLBACK_SITE;
  return {
    ...FALLBACK_SITE,
    ...data,
    plans: { ...FALLBACK_SITE.plans, ...data.plans },
    bitcoin: { ...FALLBACK_SITE.bitcoin, ...data.bitcoin },
  };
}
