/**
 * The shapes the API answers with (inside the `{ success, data, error }` envelope), inferred from
 * the zod schemas the server documents and types its answers with (`./schemas`, served as
 * OpenAPI 3.1 at /api/openapi.json). A field renamed there is a compile error in every caller.
 */
import type { z } from 'zod';
import type {
  accessLevelSchema,
  accountSessionSchema,
  addedCaptionSchema,
  adminCustomRequestSchema,
  adminLiveShowSchema,
  adminRunnersSchema,
  adminStatsSchema,
  adminVideoPageSchema,
  adminVideoSchema,
  analyticsByPlanSchema,
  analyticsSchema,
  approvalStatusSchema,
  chatConversationSchema,
  chatMessageSchema,
  chatSocketMessageSchema,
  chatStatusSchema,
  customRequestPaymentAnswerSchema,
  customRequestSchema,
  deletedCaptionSchema,
  deletedVideoSchema,
  emailVerifiedAnswerSchema,
  featuredVideoSchema,
  geoCheckSchema,
  leakExaminationRecordSchema,
  leakExaminationSchema,
  leakExaminationsAnswerSchema,
  leakOutcomeSchema,
  liveShowsAnswerSchema,
  liveStreamInfoSchema,
  memberHistoryAnswerSchema,
  memberHistoryEntrySchema,
  memberListRowSchema,
  memberPendingPaymentSchema,
  memberSummarySchema,
  messageAnswerSchema,
  mfaChallengeSchema,
  notificationSettingsSchema,
  passkeyCeremonySchema,
  passkeySchema,
  paymentRequestSchema,
  paymentSubmissionSchema,
  pendingPaymentSchema,
  pendingPaymentsAnswerSchema,
  pendingUserSchema,
  planMonthSchema,
  planSchema,
  plansAnswerSchema,
  planTypeSchema,
  registrationAnswerSchema,
  registrationRequestSchema,
  rejectedPaymentAnswerSchema,
  runnerTokenCreatedSchema,
  runnerTokenRevokedSchema,
  scheduleLiveShowSchema,
  secondFactorEnrolmentSchema,
  secondFactorStatusSchema,
  sessionSchema,
  showChatMessageSchema,
  siteInfoSchema,
  siteModelSchema,
  staffInvitationSchema,
  staffListAnswerSchema,
  staffMemberSchema,
  staffReadSchema,
  staffReadsAnswerSchema,
  staffRemovedAnswerSchema,
  streamInfoSchema,
  submittedPaymentSchema,
  subscriptionSchema,
  transcodeStateSchema,
  uploadMetadataSchema,
  userDecisionAnswerSchema,
  userSchema,
  verifiedPaymentAnswerSchema,
  videoAnalyticsSchema,
  videoEditSchema,
  videoListQuerySchema,
  videoPageSchema,
  videoSchema,
  viewAnswerSchema,
  watchTimeAnswerSchema,
} from './schemas';

export type User = z.infer<typeof userSchema>;

export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type ChatConversation = z.infer<typeof chatConversationSchema>;
export type ChatStatus = z.infer<typeof chatStatusSchema>;
export type NotificationSettings = z.infer<typeof notificationSettingsSchema>;
/** A custom video request (annual plan) as its member sees it. */
export type CustomRequest = z.infer<typeof customRequestSchema>;
/** A custom video request in the admins' queue (with who asked). */
export type AdminCustomRequest = z.infer<typeof adminCustomRequestSchema>;
/** The payment a member opens to pay a quoted request. */
export type CustomRequestPayment = z.infer<typeof customRequestPaymentAnswerSchema>;
/** What the chat WebSocket pushes. */
export type ChatPush = z.infer<typeof chatSocketMessageSchema>;
export type GeoLocation = NonNullable<User['geoLocation']>;
/** A registration waiting for approval (GET /admin/users/pending). */
export type PendingUser = z.infer<typeof pendingUserSchema>;

export type AuthResult = z.infer<typeof sessionSchema>;
/** Login's answer when a second factor is due: complete it with `verifyMfa(mfaToken, code)`. */
export type MfaChallenge = z.infer<typeof mfaChallengeSchema>;
export type LoginResult = AuthResult | MfaChallenge;

export type SecondFactorStatus = z.infer<typeof secondFactorStatusSchema>;
/** One of the account's passkeys (issue 42): name, registered, last used. */
export type Passkey = z.infer<typeof passkeySchema>;
/** A passkey ceremony's start: `options` for the browser's WebAuthn call, `ceremonyId` to send back with its answer. */
export type PasskeyCeremony = z.infer<typeof passkeyCeremonySchema>;
/** POST /auth/register: the pending account and the spec's "registration received" message. */
export type RegistrationAnswer = z.infer<typeof registrationAnswerSchema>;
export type ApprovalStatus = z.infer<typeof approvalStatusSchema>;
/** Answers that carry only a message to show (password reset). */
export type MessageAnswer = z.infer<typeof messageAnswerSchema>;
/** An admin's approval or rejection of a registration. */
export type UserDecision = z.infer<typeof userDecisionAnswerSchema>;
export type EmailVerified = z.infer<typeof emailVerifiedAnswerSchema>;
/** A started enrolment: scan `otpauthUri` (as a QR code) or type `secret`; the recovery codes are shown once. */
export type SecondFactorEnrolment = z.infer<typeof secondFactorEnrolmentSchema>;

/** POST /auth/register as the server reads it (every field may be sent missing; the rules then refuse it). */
export type RegistrationPayload = z.input<typeof registrationRequestSchema>;

export type AccessLevel = z.infer<typeof accessLevelSchema>;
export type Video = z.infer<typeof videoSchema>;
/** GET /videos and GET /admin/videos filters (the server's query schema; page numbers as numbers). */
export type VideoQuery = Omit<Partial<z.input<typeof videoListQuerySchema>>, 'page' | 'pageSize'> & { page?: number; pageSize?: number };
export type VideoPage = z.infer<typeof videoPageSchema>;
/** The admin's view of a video (GET /admin/videos): unpublished ones too, plus what the upload recorded. */
export type AdminVideo = z.infer<typeof adminVideoSchema>;
export type AdminVideoPage = z.infer<typeof adminVideoPageSchema>;
/** PUT /admin/videos/{id}: every field optional; `published` publishes or unpublishes. */
export type AdminVideoChanges = z.input<typeof videoEditSchema>;

export type StreamInfo = z.infer<typeof streamInfoSchema>;
export type TranscodeState = z.infer<typeof transcodeStateSchema>;
/** POST /videos/{id}/view. */
export type ViewAnswer = z.infer<typeof viewAnswerSchema>;
export type DeletedVideo = z.infer<typeof deletedVideoSchema>;
export type AddedCaption = z.infer<typeof addedCaptionSchema>;
export type DeletedCaption = z.infer<typeof deletedCaptionSchema>;
export type GeoCheck = z.infer<typeof geoCheckSchema>;

/** Leak tracing (docs/leak-tracing.md): one examination of a leaked copy, its outcome, and the record of past ones. */
export type LeakExamination = z.infer<typeof leakExaminationSchema>;
export type LeakOutcome = z.infer<typeof leakOutcomeSchema>;
export type LeakExaminationRecord = z.infer<typeof leakExaminationRecordSchema>;
export type LeakExaminations = z.infer<typeof leakExaminationsAnswerSchema>;

export type PlanType = z.infer<typeof planTypeSchema>;
/** One plan as GET /subscriptions/plans answers it. */
export type PlanAnswer = z.infer<typeof planSchema>;
/** GET /subscriptions/plans. */
export type PlansAnswer = z.infer<typeof plansAnswerSchema>;
/** A plan as the screens show it: the price under the site config's name `btcPrice` (the API says `btcAmount`). */
export type Plan = Omit<PlanAnswer, 'btcAmount' | 'formerBtcAmount'> & { btcPrice: string; formerBtcPrice?: string };
export type SubscriptionIntent = z.infer<typeof paymentRequestSchema>;
export type SubmittedPayment = z.infer<typeof submittedPaymentSchema>;
export type VerifiedPayment = z.infer<typeof verifiedPaymentAnswerSchema>;
export type RejectedPayment = z.infer<typeof rejectedPaymentAnswerSchema>;

/** POST /payments/submit-bitcoin-payment as the server reads it. */
export type BitcoinPaymentSubmission = z.input<typeof paymentSubmissionSchema>;

export type Subscription = z.infer<typeof subscriptionSchema>;
export type AdminStats = z.infer<typeof adminStatsSchema>;
/** GET /admin/runners: the transcode runner tokens and the runners heard from. */
export type AdminRunners = z.infer<typeof adminRunnersSchema>;
/** POST /admin/runners/tokens: the new token, shown once. */
export type RunnerTokenCreated = z.infer<typeof runnerTokenCreatedSchema>;
/** DELETE /admin/runners/tokens/{name}. */
export type RunnerTokenRevoked = z.infer<typeof runnerTokenRevokedSchema>;
/** The creator's team (issue 42): GET /admin/staff and its rows. */
export type StaffList = z.infer<typeof staffListAnswerSchema>;
export type StaffMember = z.infer<typeof staffMemberSchema>;
export type StaffInvitation = z.infer<typeof staffInvitationSchema>;
export type StaffRemoved = z.infer<typeof staffRemovedAnswerSchema>;
/** GET /admin/staff/reads: the staff's reads of personal data, audited. */
export type StaffReads = z.infer<typeof staffReadsAnswerSchema>;
export type StaffRead = z.infer<typeof staffReadSchema>;
export type PendingPayment = z.infer<typeof pendingPaymentSchema>;
/** GET /payments/pending: one of the member's own payments waiting for an admin. */
export type MemberPendingPayment = z.infer<typeof memberPendingPaymentSchema>;
/** GET /admin/pending-payments. */
export type PendingPaymentsAnswer = z.infer<typeof pendingPaymentsAnswerSchema>;
/** GET /admin/analytics. */
export type AnalyticsAnswer = z.infer<typeof analyticsSchema>;
/** GET /admin/analytics?months=N. */
export type AnalyticsByPlan = z.infer<typeof analyticsByPlanSchema>;
/** One plan in one month of `AnalyticsByPlan`. */
export type PlanMonth = z.infer<typeof planMonthSchema>;
/** GET /admin/analytics/videos. */
export type VideoAnalytics = z.infer<typeof videoAnalyticsSchema>;
/** POST /videos/{id}/watch-time. */
export type WatchTimeAnswer = z.infer<typeof watchTimeAnswerSchema>;

/** One day of the admin analytics series; extra numeric series are charted too. */
export interface AnalyticsPoint {
  date: string;
  [series: string]: string | number | null | undefined;
}

/** A tus upload's `Upload-Metadata` pairs as the server reads them (POST /admin/uploads). */
export type TusUploadMetadata = z.input<typeof uploadMetadataSchema>;

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
  /** 'annual': a behind-the-scenes video only the annual plan watches. */
  exclusiveTo?: 'annual' | null;
  /** The scheduled release, ISO 8601 with an offset; absent or null: released at once. */
  publishAt?: string | null;
  video: Blob;
  thumbnail?: Blob | null;
}

export type SiteModel = z.infer<typeof siteModelSchema>;
export type FeaturedVideo = z.infer<typeof featuredVideoSchema>;

/** GET /site as the server answers it; `api.site()` turns it into a `SiteInfo`. */
export type SiteAnswer = z.infer<typeof siteInfoSchema>;
/** The public part of the site config as the screens use it. */
export type SiteInfo = Omit<SiteAnswer, 'adminEmail' | 'explorerTxUrl' | 'plans'> & {
  adminEmail?: string;
  /** The block-explorer template (`{txid}`); the receiving address never comes from here (payment requests carry it). */
  bitcoin: { explorerTxUrl: string };
  plans: { monthly: SitePlan; annual: SitePlan };
};
/** A plan as the site config states it (the fallback the screens show before GET /subscriptions/plans answers). */
export type SitePlan = SiteAnswer['plans']['monthly'];

/** A signed-in session of the member (GET /users/me/sessions); `current` is the one making the call. */
export type AccountSession = z.infer<typeof accountSessionSchema>;

/** What account deletion asks for (DELETE /users/me): `confirmation` must be exactly `DELETE`. */
export interface DeleteAccountPayload {
  password: string;
  code?: string;
  confirmation: string;
}

/** One line of a member's history on the admin member page, from their events. */
export type MemberHistoryEntry = z.infer<typeof memberHistoryEntrySchema>;
/** The member as the read model has them now (personal fields read as placeholders once erased). */
export type MemberSummary = z.infer<typeof memberSummarySchema>;
export type MemberHistory = z.infer<typeof memberHistoryAnswerSchema>;
/** A row of the admin's member search (GET /admin/users?q=). */
export type MemberListRow = z.infer<typeof memberListRowSchema>;
/** What the privacy policy says about erasure and retention (site config `privacy`). */
export type PrivacyInfo = SiteInfo['privacy'];
/** A live show as a member sees it (GET /live/shows, issue 43). */
export type LiveShow = z.infer<typeof liveShowsAnswerSchema>['shows'][number];
/** GET /live/shows/{id}/stream: the signed live playlist, or the player's words before and after. */
export type LiveStreamInfo = z.infer<typeof liveStreamInfoSchema>;
/** A show as the admin sees it; `streamKey` only in the answer to scheduling or a rotation (shown once). */
export type AdminLiveShow = z.infer<typeof adminLiveShowSchema>;
/** POST /admin/live/shows: what the admin schedules. */
export type ScheduleLiveShowInput = z.input<typeof scheduleLiveShowSchema>;
/** One message of a live show's chat room (display name only). */
export type ShowChatMessage = z.infer<typeof showChatMessageSchema>;
/** What the room's socket pushes: a new message, or one staff removed. */
export type ShowChatPush =
  | { type: 'message'; message: ShowChatMessage }
  | { type: 'deleted'; showId: string; messageId: string }
  | { type: 'muted' | 'unmuted'; showId: string; userId: string };
