/** Shared UI for the web app and the admin desktop: components, plus re-exports of the format helpers and API client. */

export * from './access/accessDecision';
export * from './access/staffRoles';
export { CHAT_MAX_LENGTH, CUSTOM_REQUEST_MAX_LENGTH } from './api/chatLimits';
export * from './api/index';
export * from './api/queries/index';
export { AdminAccessDenied, AdminDashboard, type AdminDashboardProps } from './components/AdminDashboard';
export { ApiClientProvider, useApiClient, useOptionalApiClient } from './components/ApiContext';
export { Button, type ButtonProps } from './components/Button';
export { Card, type CardProps } from './components/Card';
export { ChatInbox, type ChatInboxProps, spanLabel, waitingFor } from './components/ChatInbox';
export { ChatThread, type ChatThreadProps, chatTime, withMessage } from './components/ChatThread';
export { ConfirmDialog, type ConfirmDialogProps } from './components/ConfirmDialog';
export { CreatorNumbers, formatWatchTime, PlanMonthsTable, VideoFiguresTable } from './components/CreatorNumbers';
export { CustomRequestStatus, CustomRequestsQueue } from './components/CustomRequestsQueue';
export { type Column, DataTable, type DataTableProps } from './components/DataTable';
export { Alert, EmptyState, Spinner } from './components/Feedback';
export { CheckboxField, FormField, type FormFieldProps, SelectField, TextAreaField } from './components/FormField';
export { LazyAnalyticsCharts } from './components/LazyAnalyticsCharts';
export { LeakTracing, type LeakTracingProps, leakKeys, leakOutcomeInWords } from './components/LeakTracing';
export { LiveShowsAdmin, type LiveShowsAdminProps, liveAccessInWords, liveShowKeys } from './components/LiveShowsAdmin';
export { lazyScreen } from './components/lazyScreen';
export { ERASE_REASON_MAX, MemberHistoryView, type MemberHistoryViewProps } from './components/MemberHistoryView';
export { MemberSearch, type MemberSearchProps } from './components/MemberSearch';
export { PasswordField, type PasswordFieldProps } from './components/PasswordField';
export {
  type PaymentReasonDialogProps,
  REJECT_REASON_MAX,
  RejectPaymentDialog,
  VerifyOverrideDialog,
} from './components/PaymentReasonDialog';
export { PendingPaymentsTable, type PendingPaymentsTableProps } from './components/PendingPaymentsTable';
export { PendingUsersTable, type PendingUsersTableProps } from './components/PendingUsersTable';
export { QrCode, type QrCodeProps } from './components/QrCode';
export {
  SecondFactorCodeForm,
  type SecondFactorCodeFormProps,
  SecondFactorSetup,
  type SecondFactorSetupProps,
} from './components/SecondFactor';
export { type ShowChatLiveSource, ShowChatRoom, type ShowChatRoomProps } from './components/ShowChatRoom';
export { StaffAdmin } from './components/StaffAdmin';
export { StatCard, StatCards } from './components/StatCards';
export { StatusBadge } from './components/StatusBadge';
export { TranscodeRunners } from './components/TranscodeRunners';
export { UploadVideoForm, type UploadVideoFormProps } from './components/UploadVideoForm';
export { type ChatLiveSource, useChatFeed, useChatSocket } from './components/useChatSocket';
export { type LinkLikeProps, VideoCard, type VideoCardProps } from './components/VideoCard';
export { LIBRARY_PAGE_SIZE, VideoLibrary } from './components/VideoLibrary';
export { type AccessLevelValue, VideoLibraryTable, type VideoLibraryTableProps } from './components/VideoLibraryTable';
export { VideoThumbnail } from './components/VideoThumbnail';
export * from './format/index';
export * from './money/btc';
export * from './money/chainEvidence';
