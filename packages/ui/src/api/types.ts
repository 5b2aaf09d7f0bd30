/** The shapes the API answers with (inside the `{ success, data, error }` envelope). */

export interface GeoLocation {
  country?: string | null;
  region?: string | null;
}

export interface User {
  id: string;
  email: string;
  firstName?: string;
  lastName?: string;
  role?: string;
  status?: string;
  approved?: boolean;
  membershipStatus?: string;
  subscriptionStatus?: string | null;
  registrationDate?: string;
  createdAt?: string;
  geoLocation?: GeoLocation | null;
}

export interface AuthResult {
  token: string;
  user: User;
  /** An admin who must enrol a second factor before anything else (the server's REQUIRE_ADMIN_2FA). */
  mfaEnrollmentRequired?: boolean;
}

/** Login's answer when a second factor is due: complete it with `verifyMfa(mfaToken, code)`. */
export interface MfaChallenge {
  mfaRequired: true;
  mfaToken: string;
}

export type LoginResult = AuthResult | MfaChallenge;

export interface SecondFactorStatus {
  enabled: boolean;
  pending: boolean;
  recoveryCodesLeft: number;
  required: boolean;
}

/** A started enrolment: scan `otpauthUri` (as a QR code) or type `secret`; the recovery codes are shown once. */
export interface SecondFactorEnrolment {
  secret: string;
  otpauthUri: string;
  recoveryCodes: string[];
}

export interface RegistrationPayload {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
  agreeToTerms: boolean;
}

export type AccessLevel = 'free' | 'premium' | 'vip' | (string & {});

export interface Video {
  id: string;
  title: string;
  description?: string;
  modelName?: string;
  duration?: number;
  viewCount?: number;
  publishedDate?: string;
  thumbnailPath?: string | null;
  thumbnailUrl?: string | null;
  tags?: string[];
  categories?: string[];
  accessLevel: AccessLevel;
}

export interface VideoQuery {
  page?: number;
  pageSize?: number;
  q?: string;
  model?: string;
  category?: string;
  tag?: string;
  accessLevel?: string;
  sort?: string;
}

/** GET /videos. */
export interface VideoPage {
  videos: Video[];
  total: number;
  page: number;
  pageSize: number;
}

/** The admin's view of a video (GET /admin/videos): unpublished ones too, plus what the upload recorded. */
export interface AdminVideo extends Video {
  published: boolean;
  uploadedAt?: string | null;
  updatedAt?: string | null;
  width?: number;
  height?: number;
  codec?: string | null;
  audioCodec?: string | null;
  /** Bytes. */
  size?: number;
  mimeType?: string | null;
}

/** GET /admin/videos. */
export interface AdminVideoPage {
  videos: AdminVideo[];
  total: number;
  page: number;
  pageSize: number;
}

/** PUT /admin/videos/{id}: every field optional; `published` publishes or unpublishes. */
export interface AdminVideoChanges {
  title?: string;
  description?: string;
  model?: string | null;
  accessLevel?: 'free' | 'premium' | 'vip';
  tags?: string[] | string;
  categories?: string[] | string;
  published?: boolean;
}

export interface StreamInfo {
  streamUrl: string;
  watermarkText: string;
}

export interface GeoCheck {
  blocked: boolean;
  requiresVerification: boolean;
  country?: string | null;
  region?: string | null;
}

export type PlanType = 'monthly' | 'annual';

export interface Plan {
  planType?: PlanType;
  id?: string;
  name: string;
  btcPrice: string;
  usdPrice: number;
  formerBtcPrice?: string;
  formerUsdPrice?: number;
  savingsText?: string;
  mostPopular?: boolean;
  features: string[];
}

/** One plan as GET /subscriptions/plans answers it: amounts named as on an invoice (the client renames them `btcPrice`). */
export type PlanAnswer = Omit<Plan, 'btcPrice' | 'formerBtcPrice' | 'planType' | 'id'> & {
  id: PlanType;
  planType: PlanType;
  interval: 'month' | 'year';
  btcAmount: string;
  amountSats: number;
  formerBtcAmount?: string;
  formerAmountSats?: number;
};

/** GET /subscriptions/plans. */
export interface PlansAnswer {
  plans: PlanAnswer[];
  paymentMethods: string[];
  bitcoinNetwork: string;
}

export interface SubscriptionIntent {
  address: string;
  btcAmount: string;
  bip21Uri?: string;
  expiresAt?: string;
  planType?: PlanType;
  paymentId?: string;
  requestId?: string;
}

export interface BitcoinPaymentSubmission {
  userId: string;
  planType: PlanType;
  btcAmount: string;
  transactionHash?: string;
}

export interface Subscription {
  id: string;
  planType: PlanType;
  status: 'active' | 'canceled' | 'past_due' | 'unpaid' | (string & {});
  cancelAtPeriodEnd: boolean;
  /** The plan's USD price. */
  amount: number;
  btcAmount: string;
  currentPeriodStart: string;
  currentPeriodEnd: string;
  /** While past due: when access ends. */
  gracePeriodEnd?: string;
}

export interface AdminStats {
  pendingApprovals: number;
  activeMembers: number;
  totalRevenue: string;
  pendingPayments: number;
  activeSubscribers?: number;
}

export interface PendingPayment {
  id: string;
  userEmail: string;
  planType: PlanType;
  btcAmount: string;
  submittedDate: string;
  transactionHash?: string | null;
}

/** One day of the admin analytics series; extra numeric series are charted too. */
export interface AnalyticsPoint {
  date: string;
  [series: string]: string | number | null | undefined;
}

/** GET /admin/analytics: every UTC day of the window (revenueSats, revenueBtc, verifiedPayments, registrations, approvals, activeSubscriptions) and their totals. */
export interface AnalyticsAnswer {
  from: string;
  to: string;
  days: AnalyticsPoint[];
  totals: Omit<AnalyticsPoint, 'date'>;
}

export interface UploadVideoPayload {
  title: string;
  description: string;
  model: string;
  duration: string;
  accessLevel?: string;
  /** Comma-separated. */
  tags?: string;
  /** Comma-separated. */
  categories?: string;
  video: Blob;
  thumbnail?: Blob | null;
}

export interface SiteModel {
  name: string;
  videoCount: number;
  description: string;
  imageUrl: string;
  badges: string[];
}

export interface FeaturedVideo {
  id: string;
  title: string;
  duration: string;
  thumbnailUrl: string;
  badges: string[];
}

/** The public part of the site config (GET /site). */
export interface SiteInfo {
  siteName: string;
  marketplaceProfileUrl: string;
  adminEmail?: string;
  models: SiteModel[];
  custodianOfRecords: { name: string; address: string; email: string };
  contactEmail: string;
  /** The block-explorer template (`{txid}`); the receiving address never comes from here (payment requests carry it). */
  bitcoin: { explorerTxUrl: string };
  plans: { monthly: Plan; annual: Plan };
  featuredVideos: FeaturedVideo[];
}

/** GET /site as the server answers it; `api.site()` turns it into a `SiteInfo`. */
export type SiteAnswer = Omit<SiteInfo, 'bitcoin' | 'adminEmail'> & { explorerTxUrl: string; adminEmail: string | null };
