/**
 * Brand-specific values in one file: `site.config.json` at the repository root (or `SITE_CONFIG`),
 * falling back to `site.config.example.json`, which documents every field.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrandPalette, brandPalette, DEFAULT_BRAND } from '@members/ui/theme';
import { z } from 'zod';
import { ConfigError } from './env.js';

const planSchema = z.object({
  name: z.string(),
  /** BTC price as a decimal string, e.g. "0.0005" (kept exact; converted to satoshis). */
  btcPrice: z.string().regex(/^\d+(\.\d{1,8})?$/),
  usdPrice: z.number().nonnegative(),
  formerBtcPrice: z
    .string()
    .regex(/^\d+(\.\d{1,8})?$/)
    .optional(),
  formerUsdPrice: z.number().nonnegative().optional(),
  savingsText: z.string().optional(),
  mostPopular: z.boolean().default(false),
  features: z.array(z.string()),
});

export const siteConfigSchema = z.object({
  siteName: z.string().min(1),
  marketplaceProfileUrl: z.string().url(),
  adminEmail: z.string().email().optional(),
  models: z
    .array(
      z.object({
        name: z.string().min(1),
        videoCount: z.number().int().nonnegative(),
        description: z.string(),
        imageUrl: z.string(),
        badges: z.array(z.enum(['NEW', 'POPULAR'])).default([]),
      }),
    )
    .length(3),
  custodianOfRecords: z.object({ name: z.string(), address: z.string(), email: z.string() }),
  contactEmail: z.string(),
  bitcoin: z
    .object({
      /** Either one fixed receiving address (the spec's behaviour)… */
      address: z.string().optional(),
      /** …or a BIP84 account extended public key (xpub/zpub): a fresh address per payment request. */
      xpub: z.string().optional(),
      /** `regtest`: a local test chain (keys tpub/vpub as on testnet, addresses bcrt1…). */
      network: z.enum(['mainnet', 'testnet', 'regtest']).default('mainnet'),
      explorerTxUrl: z.string().default('https://mempool.space/tx/{txid}'),
      paymentRequestTtlHours: z.number().int().positive().default(24),
      /** Confirmations for the chain status `confirmed` (with a node configured: BITCOIN_RPC_URL); 0 accepts a non-RBF mempool transaction. */
      confirmations: z.number().int().min(0).max(100).default(1),
      /** Verify payments the chain shows `confirmed` without an admin (needs `xpub`: with one fixed address payments cannot be told apart). */
      autoVerify: z.boolean().default(false),
      /** An underpayment within this share of the price counts as paid. */
      underpaymentTolerancePercent: z.number().min(0).max(50).default(0),
    })
    .refine((b) => Boolean(b.address) !== Boolean(b.xpub), 'set exactly one of bitcoin.address or bitcoin.xpub')
    .refine((b) => !(b.autoVerify && b.address), {
      message:
        'bitcoin.autoVerify needs bitcoin.xpub: with one fixed address for every request the chain cannot tell whose payment is whose',
      path: ['autoVerify'],
    }),
  plans: z.object({ monthly: planSchema, annual: planSchema }),
  /** Renewal requests open this many days before a subscription's period ends (billing/renewals.ts). */
  renewals: z.object({ noticeDays: z.number().int().min(1).max(60).default(7) }).default({ noticeDays: 7 }),
  featuredVideos: z.array(
    z.object({ id: z.string(), title: z.string(), duration: z.string(), thumbnailUrl: z.string(), badges: z.array(z.string()) }),
  ),
  geo: z
    .object({
      /** ISO 3166-1 country or country-region codes, e.g. "US-UT". */
      blockedRegions: z.array(z.string()).default([]),
      verificationRegions: z.array(z.string()).default([]),
    })
    .default({ blockedRegions: [], verificationRegions: [] }),
  /**
   * What erasure keeps and for how long (README "Privacy"; the Privacy Policy page quotes it):
   * payment records (ids, amounts, plan, dates, transaction hashes, without name or address) are
   * kept for accounting as the operator's law requires — 10 years is common for EU accounting records.
   * Backups and server logs: how long the operator keeps them before they are overwritten.
   */
  privacy: z
    .object({
      paymentRecordRetentionYears: z.number().int().min(0).max(50).default(10),
      retentionBasis: z.string().default('statutory retention of accounting records'),
      backupRetentionDays: z.number().int().min(0).max(3650).default(30),
      logRetentionDays: z.number().int().min(0).max(3650).default(14),
    })
    .default({
      paymentRecordRetentionYears: 10,
      retentionBasis: 'statutory retention of accounting records',
      backupRetentionDays: 30,
      logRetentionDays: 14,
    }),
  /**
   * Which HLS renditions each viewer may watch, as the highest picture height (renditions are named
   * by height: 2160p, 1080p, 720p, 480p, 360p). A subscriber gets their plan's; an approved member
   * without a subscription gets `freeMaxHeight` on free videos.
   */
  media: z
    .object({
      maxHeightByPlan: z
        .object({ monthly: z.number().int().min(144).max(4320), annual: z.number().int().min(144).max(4320) })
        .default({ monthly: 1080, annual: 2160 }),
      freeMaxHeight: z.number().int().min(144).max(4320).default(720),
    })
    .default({ maxHeightByPlan: { monthly: 1080, annual: 2160 }, freeMaxHeight: 720 }),
  /**
   * Scheduled releases with early access by plan (docs/videos.md "Scheduled releases"): each audience may
   * watch a scheduled video `publishAt` + its delay, in days. A subscriber's audience is their plan; an
   * approved member without a plan (free videos only) gets `freeDelayDays`; on a free video a subscriber
   * gets the smaller of their plan's and the free delay.
   */
  releases: z
    .object({
      delayDaysByPlan: z
        .object({ monthly: z.number().int().min(0).max(365).default(0), annual: z.number().int().min(0).max(365).default(0) })
        .default({ monthly: 0, annual: 0 }),
      freeDelayDays: z.number().int().min(0).max(365).default(0),
    })
    .default({ delayDaysByPlan: { monthly: 0, annual: 0 }, freeDelayDays: 0 }),
  /** Custom video requests: the highest quote an admin may send (BTC, a decimal string); a higher one is refused as a typo. */
  customRequests: z
    .object({
      maxQuoteBtc: z
        .string()
        .regex(/^\d+(\.\d{1,8})?$/)
        .default('1'),
    })
    .default({ maxQuoteBtc: '1' }),
  /**
   * The brand's colours (#rrggbb). Text on `brand` and brand-coloured text on the dark pages are computed
   * to reach WCAG 2.2 AA (4.5:1); set `textOnBrand` or `brandText` to choose them yourself — a config
   * whose colours do not reach 4.5:1 is refused (docs/accessibility.md).
   */
  theme: z
    .object({ brand: z.string().default(DEFAULT_BRAND), textOnBrand: z.string().optional(), brandText: z.string().optional() })
    .default({ brand: DEFAULT_BRAND })
    .transform((colours, ctx): BrandPalette => {
      const result = brandPalette(colours);
      if (result.ok) return result.palette;
      for (const message of result.errors) ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }),
});

export type SiteConfig = z.infer<typeof siteConfigSchema>;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Finds the repository root from either the source tree or the bundled dist. */
function findRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (fs.existsSync(path.join(dir, 'pnpm-workspace.yaml'))) return dir;
    dir = path.dirname(dir);
  }
  return repoRoot;
}

export const ROOT_DIR = findRoot();

export function loadSiteConfig(file?: string): { config: SiteConfig; file: string } {
  const candidates = file
    ? [path.resolve(file)]
    : [path.join(ROOT_DIR, 'site.config.json'), path.join(ROOT_DIR, 'site.config.example.json')];
  const found = candidates.find((f) => fs.existsSync(f));
  if (!found) throw new ConfigError(`Site config not found (looked for ${candidates.join(', ')})`);
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(found, 'utf8'));
  } catch (err) {
    throw new ConfigError(`Site config ${found} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = siteConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid site config ${found}:\n${lines.join('\n')}`);
  }
  return { config: parsed.data, file: found };
}
