/** The public site config (GET /api/site), the region check and the health probe. */
import { z } from 'zod';
import { runnerStatusSchema } from './runners';

const sitePlanSchema = z.object({
  name: z.string(),
  btcPrice: z.string(),
  usdPrice: z.number(),
  formerBtcPrice: z.string().optional(),
  formerUsdPrice: z.number().optional(),
  savingsText: z.string().optional(),
  mostPopular: z.boolean(),
  features: z.array(z.string()),
});

export const siteModelSchema = z.object({
  name: z.string(),
  videoCount: z.number().int(),
  description: z.string(),
  imageUrl: z.string(),
  badges: z.array(z.enum(['NEW', 'POPULAR'])),
});

export const featuredVideoSchema = z.object({
  id: z.string(),
  title: z.string(),
  duration: z.string(),
  thumbnailUrl: z.string(),
  badges: z.array(z.string()),
});

export const siteInfoSchema = z
  .object({
    siteName: z.string(),
    marketplaceProfileUrl: z.string(),
    models: z.array(siteModelSchema),
    custodianOfRecords: z.object({ name: z.string(), address: z.string(), email: z.string() }),
    contactEmail: z.string(),
    plans: z.object({ monthly: sitePlanSchema, annual: sitePlanSchema }),
    featuredVideos: z.array(featuredVideoSchema),
    /** A block-explorer URL with `{txid}` where the transaction hash goes. */
    explorerTxUrl: z.string(),
    /** How long payment records are kept after an account is erased, and why (spec: privacy notice). */
    privacy: z.object({
      paymentRecordRetentionYears: z.number().int(),
      retentionBasis: z.string(),
      /** How long backups and server logs are kept before they are overwritten (the policy page says so). */
      backupRetentionDays: z.number().int(),
      logRetentionDays: z.number().int(),
    }),
    adminEmail: z.string().nullable(),
    /** Scheduled releases: days after a video's `publishAt` each audience may watch it (issue 40). */
    releases: z.object({
      delayDaysByPlan: z.object({ monthly: z.number().int(), annual: z.number().int() }),
      /** Approved members without a plan (free videos only). */
      freeDelayDays: z.number().int(),
    }),
    /** The brand's colours, checked for WCAG 2.2 AA contrast when the config loaded (theme/contrast.ts brandPalette). */
    theme: z.object({ brand: z.string(), onBrand: z.string(), brandText: z.string(), brandHover: z.string() }),
  })
  .meta({ id: 'SiteInfo' });

export const geoCheckSchema = z.object({
  blocked: z.boolean(),
  requiresVerification: z.boolean(),
  country: z.string().nullable(),
  region: z.string().nullable(),
});

/** `subscriberLag` > 0 while a checkpointed subscriber catches up on the log (beside serving); each one's position and lag. */
/** GET /api/health for anyone but an admin: liveness only. */
export const publicHealthSchema = z.object({ status: z.literal('ok') });

/** GET /api/health for an admin: the details (also in the metrics). */
export const healthSchema = z.object({
  status: z.literal('ok'),
  store: z.enum(['sqlite', 'postgres']),
  headPosition: z.number().int(),
  subscriberLag: z.number().int(),
  subscribers: z.array(z.object({ name: z.string(), position: z.number().int(), lag: z.number().int() })),
  /** Where media lives (`MEDIA_STORE`) and whether this process can reach it now. */
  media: z.object({ kind: z.enum(['local', 's3']), reachable: z.boolean() }),
  /** The transcode queue and its runners (docs/transcode-runners.md). */
  transcode: z.object({
    /** Whether API processes transcode themselves (TRANSCODE_IN_SERVER). */
    inServer: z.boolean(),
    /** Jobs waiting for a runner (queued, or left by a runner whose lease passed). */
    queued: z.number().int(),
    /** Jobs being transcoded under a live lease. */
    running: z.number().int(),
    /** Runners heard from in the last 15 minutes: a stopped one is removed, a dead one stays with its last heartbeat. */
    runners: z.array(runnerStatusSchema),
  }),
});
