/**
 * The API's error vocabulary: every refusal or failure answers `{ success: false, error, code }`
 * with one of these stable, dotted codes. `error` is the message to show (spec copy where the spec
 * words it) and may change; `code` does not, so clients branch on it, never on the message text.
 * The server (packages/api/src/shared/errors.ts) and the OpenAPI document (the `ErrorEnvelope`
 * schema's enum) both read this list; docs/api.md lists it with each code's meaning.
 *
 * A code names one status (`status`); tus refusals passed through keep the tus server's status.
 */
export const ERROR_CODES = {
  // The request itself
  'validation.invalid_body': {
    status: 400,
    meaning: 'The body, query or path failed its schema: `error` names the first problem (`field: message`), `details` lists them all',
  },
  'validation.malformed_json': { status: 400, meaning: 'The body is not valid JSON, or not a JSON object' },
  'validation.invalid_input': {
    status: 400,
    meaning:
      'A value the schema accepts but the rule refuses (a duration, a BTC amount, a date range, a reason left empty, the same value as before)',
  },
  'request.unreadable_body': { status: 400, meaning: 'The body is malformed (chunked encoding) or was cut short' },
  'request.body_too_large': { status: 413, meaning: 'The body is over the limit (1 MiB for JSON; `MAX_UPLOAD_BYTES` for a video)' },
  'request.json_only': { status: 415, meaning: 'A JSON route was sent another body type' },
  'request.cross_site': { status: 403, meaning: 'A cross-site browser request to the API (Origin or Sec-Fetch-Site)' },
  'request.csrf': { status: 403, meaning: 'The refresh cookie came without the matching CSRF header' },
  'request.websocket_required': { status: 426, meaning: 'The chat socket address was opened without a WebSocket upgrade' },
  'route.not_found': { status: 404, meaning: 'No API route has this method and path' },
  'record.exists': { status: 409, meaning: 'A write ran into a unique rule (a record that already exists)' },
  rate_limited: {
    status: 429,
    meaning: 'Too many requests (login attempts, mail, chat messages, a network); `Retry-After` says when to try again',
  },
  'server.error': { status: 500, meaning: 'An unexpected fault; the message names the request id for the operator' },
  'server.event_store_unreachable': { status: 503, meaning: 'The event store (database) does not answer' },
  'media.store_unavailable': { status: 503, meaning: 'The media store (disk or S3) is down or refuses the server; try again later' },
  // Signing in and sessions
  'auth.required': { status: 401, meaning: 'The route needs a signed-in account and the request has no access token' },
  'auth.malformed_header': { status: 401, meaning: 'The Authorization header is not `Bearer <token>`' },
  'auth.session_expired': {
    status: 401,
    meaning: 'The access token, refresh token or session is invalid, expired or ended: sign in again',
  },
  'auth.account_gone': { status: 401, meaning: 'The token names an account that no longer exists' },
  'auth.account_suspended': { status: 401, meaning: 'The token is of an account an admin suspended' },
  'auth.invalid_credentials': { status: 401, meaning: 'Wrong email or password at login' },
  'auth.login_suspended': { status: 403, meaning: 'A suspended account tried to sign in' },
  'auth.not_approved': { status: 403, meaning: 'The account’s registration was rejected' },
  'auth.admin_only': { status: 403, meaning: 'An admin route called by a member' },
  'auth.permission_required': {
    status: 403,
    meaning: 'A staff member whose role lacks the permission the route names (the message names it; @members/ui/staffRoles)',
  },
  'auth.second_factor_enrolment_required': {
    status: 403,
    meaning: 'An admin must enrol a second factor before anything else (the clients open its setup)',
  },
  'auth.wrong_password': { status: 401, meaning: 'The current password given to confirm a change is wrong' },
  'auth.invalid_link': { status: 400, meaning: 'A password reset, verification or email change link is invalid, used or expired' },
  // Second factor
  'mfa.invalid_code': { status: 401, meaning: 'The authentication code, recovery code or proof is wrong' },
  'mfa.code_used': { status: 401, meaning: 'The authentication code was already used (each works once)' },
  'mfa.enrolment_code_invalid': { status: 400, meaning: 'The code confirming an enrolment is wrong or already used' },
  'mfa.no_pending_enrolment': { status: 400, meaning: 'No enrolment is waiting for confirmation (or another one replaced it)' },
  'mfa.already_enabled': { status: 409, meaning: 'The account already has a second factor' },
  'mfa.not_enabled': { status: 409, meaning: 'The account has no second factor to remove' },
  'mfa.challenge_expired': {
    status: 401,
    meaning: 'The sign-in challenge expired, was used or no longer matches the account: sign in again',
  },
  'mfa.code_required': { status: 401, meaning: 'An admin with a second factor must give its code to erase the account' },
  // Passkeys (issue 42)
  'passkey.not_verified': {
    status: 401,
    meaning: 'The passkey answer did not verify (wrong challenge, origin, signature or an unknown passkey)',
  },
  'passkey.ceremony_expired': { status: 400, meaning: 'The passkey challenge expired or was used: start again' },
  'passkey.already_registered': { status: 409, meaning: 'This passkey is registered already' },
  'passkey.limit': { status: 409, meaning: 'The account has the most passkeys it may have' },
  'passkey.not_found': { status: 404, meaning: 'No such passkey on this account' },
  'auth.passkey_required': {
    status: 401,
    meaning: 'An admin whose second factor is a passkey signs in with it, not with the password alone',
  },
  // Accounts
  'user.not_found': { status: 404, meaning: 'No such account (or it was erased)' },
  'user.exists': { status: 409, meaning: 'An account with this email already exists' },
  'user.state_conflict': { status: 409, meaning: 'The account’s status does not allow this (already approved, suspended, an admin...)' },
  'user.email_taken': { status: 409, meaning: 'Another account uses this email' },
  'user.email_change_not_allowed': { status: 403, meaning: 'Only an approved member may change their email' },
  'user.confirmation_mismatch': { status: 400, meaning: 'The erasure confirmation phrase does not match' },
  'session.not_found': { status: 404, meaning: 'No such session of this account' },
  // Catalog and streaming
  'video.not_found': { status: 404, meaning: 'No such published video (or its file, rendition or thumbnail)' },
  'video.exists': { status: 409, meaning: 'A video with this id already exists' },
  'upload.not_found': { status: 404, meaning: 'No such upload of this admin' },
  'upload.incomplete': { status: 409, meaning: 'The upload has not received all its bytes yet' },
  'upload.complete': { status: 409, meaning: 'The upload is already complete' },
  'upload.tus_version_unsupported': {
    status: 412,
    meaning: 'tus: `Tus-Resumable` is missing or not `1.0.0`; `Tus-Version` names the version served',
  },
  'upload.patch_content_type': { status: 415, meaning: 'tus: a PATCH body must be `application/offset+octet-stream`' },
  'upload.refused': {
    status: 400,
    meaning: 'The tus server refused the request (its own status is kept: 400, 403, 404, 409, 410, 412, 413, 415, 460)',
  },
  'upload.store_failed': { status: 400, meaning: 'The upload could not be stored or was not valid multipart/form-data' },
  'access.not_logged_in': { status: 401, meaning: 'Spec §4: a visitor asked for a video' },
  'access.not_approved': { status: 403, meaning: 'Spec §4: the member’s account is pending approval' },
  'access.suspended': { status: 403, meaning: 'The member’s account is suspended' },
  'access.region_blocked': { status: 403, meaning: 'Spec §4: the video is not available in the viewer’s region' },
  'access.subscription_required': { status: 403, meaning: 'Spec §4: premium content needs an active subscription' },
  'access.vip_subscription_required': { status: 403, meaning: 'Spec §4: VIP content needs a VIP subscription' },
  'access.annual_plan_required': {
    status: 403,
    meaning: 'The video is exclusive to the annual plan (behind-the-scenes) and the member has no active annual subscription',
  },
  'access.not_yet_available': {
    status: 403,
    meaning: 'A scheduled video whose day has not come for the member’s plan (`releases` in the site config); the message names the date',
  },
  'access.invalid_access_level': { status: 403, meaning: 'The video’s access level is not one the site knows' },
  'stream.link_invalid': { status: 403, meaning: 'A media or HLS link whose signature, rendition or viewer does not match' },
  'stream.link_expired': { status: 403, meaning: 'A media or HLS link past its expiry: ask for a new stream URL' },
  'transcode.state_conflict': {
    status: 409,
    meaning: 'The transcode is not in a state that allows this (already done, failed, another attempt)',
  },
  'caption.not_found': { status: 404, meaning: 'The video has no caption track in this language' },
  'caption.invalid_file': {
    status: 400,
    meaning: 'The caption file is neither SRT nor WebVTT (or not UTF-8): `error` and `details.line` name the line',
  },
  'caption.file_too_large': { status: 413, meaning: 'The caption file is over its limit (1 MiB)' },
  'caption.form_required': { status: 415, meaning: 'A caption upload must be multipart/form-data (file, language, label)' },
  'runner.token_invalid': { status: 401, meaning: 'A runner route called without a valid runner token (missing, wrong or revoked)' },
  'runner.job_lost': { status: 409, meaning: 'The runner no longer holds the job (its claim expired or was released): publish nothing' },
  'runner.invalid_ladder': { status: 400, meaning: 'The files a runner names or completes are not a valid HLS ladder' },
  'runner.file_link_invalid': { status: 403, meaning: 'A runner file URL whose signature does not match' },
  'runner.file_link_expired': { status: 403, meaning: 'A runner file URL past its expiry' },
  'runner.token_name_taken': { status: 409, meaning: 'A live runner token has that name already: revoke it first, or choose another' },
  'runner.token_not_found': { status: 404, meaning: 'No live runner token has that name (never made, or revoked already)' },
  'runner.file_not_found': {
    status: 404,
    meaning: 'No such runner file: the original is gone, or the store takes uploads through presigned URLs',
  },
  // Billing
  'payment.not_found': { status: 404, meaning: 'No such payment' },
  'payment.state_conflict': {
    status: 409,
    meaning: 'The payment’s status does not allow this (already submitted, verified, rejected or canceled)',
  },
  'payment.not_yours': { status: 403, meaning: 'The payment or account belongs to someone else' },
  'payment.tx_hash_used': { status: 409, meaning: 'This transaction hash was already submitted' },
  'payment.pending_exists': { status: 409, meaning: 'A payment for this plan is already waiting for verification' },
  'payment.approval_required': { status: 403, meaning: 'Only an approved, not suspended member may subscribe' },
  'payment.chain_unchecked': {
    status: 409,
    meaning: 'A Bitcoin node is configured but has not checked this payment yet (verify with an override)',
  },
  'payment.chain_awaiting': { status: 409, meaning: "Nothing paying this request's address has been seen on the chain yet" },
  'payment.chain_not_found': {
    status: 409,
    meaning: 'The submitted transaction is neither in the chain (as far as followed) nor in the mempool',
  },
  'payment.chain_wrong_address': { status: 409, meaning: "The submitted transaction pays nothing to the payment's address" },
  'payment.chain_underpaid': {
    status: 409,
    meaning: 'The transaction pays less than the price (beyond `bitcoin.underpaymentTolerancePercent`)',
  },
  'payment.chain_unconfirmed': {
    status: 409,
    meaning: 'The transaction has fewer than `bitcoin.confirmations` confirmations (or signals RBF and is unconfirmed)',
  },
  'payment.chain_conflicted': { status: 409, meaning: 'The transaction was replaced or double-spent, or left the chain after a reorg' },
  'subscription.not_found': { status: 404, meaning: 'No such subscription of this member' },
  'subscription.state_conflict': {
    status: 409,
    meaning: 'The subscription’s status does not allow this (not active, already canceling, erased account)',
  },
  // Custom video requests
  'custom_request.not_found': { status: 404, meaning: 'No such custom request (or another member’s)' },
  'custom_request.not_annual': {
    status: 403,
    meaning: 'Custom video requests need an active annual (VIP) subscription',
  },
  'custom_request.state_conflict': {
    status: 409,
    meaning: 'The request’s status does not allow this (not quoted yet, already paid, declined or delivered, a payment open)',
  },
  // Live shows (issue 43)
  'live.show_not_found': { status: 404, meaning: 'No such live show' },
  'live.state_conflict': { status: 409, meaning: 'The show’s status does not allow this (already live, already ended)' },
  'live.publish_refused': {
    status: 403,
    meaning:
      'An RTMP publish nginx-rtmp asked about (on_publish) is refused: not the ingest’s secret, or not the current key of a scheduled show',
  },
  // A live show's chat room (issue 43)
  'live.chat_closed': { status: 409, meaning: 'The show has ended: its chat room takes no more messages' },
  'live.chat_muted': { status: 403, meaning: 'Staff muted this member in the show’s chat room' },
  'live.chat_message_not_found': { status: 404, meaning: 'No such message in this show’s chat room' },
  'live.chat_member_not_found': { status: 404, meaning: 'No such member to mute' },
  // Chat
  'chat.access_denied': { status: 403, meaning: 'The member may not write in the chat (no subscription, not approved, suspended)' },
  'chat.message_not_found': { status: 404, meaning: 'No such message (or not the member’s own)' },
  'chat.message_exists': { status: 409, meaning: 'A message with this id was already sent' },
  'chat.not_own_message': { status: 403, meaning: 'A member may delete only their own messages' },
  'chat.invalid_ticket': { status: 401, meaning: 'The chat socket ticket is invalid, used or expired' },
  'chat.member_not_found': { status: 404, meaning: 'No such member to chat with' },
  // Leak tracing (docs/leak-tracing.md)
  'leak.watermark_off': {
    status: 409,
    meaning: 'Leak tracing is off on this server (`FORENSIC_WATERMARK`): no stream carries a mark to read a copy by',
  },
  'leak.form_required': { status: 415, meaning: 'A leaked copy must be sent as multipart/form-data (`file`, optional `videoId`)' },
  'leak.file_required': { status: 400, meaning: 'The form has no `file` part, or it is empty' },
  'leak.file_too_large': { status: 413, meaning: 'The copy is over `LEAK_COPY_MAX_BYTES`; nothing is kept' },
  'leak.queue_full': { status: 503, meaning: 'Too many copies are waiting to be examined on this server; try again later' },
  'leak.examination_not_found': { status: 404, meaning: 'No such examination of a leaked copy' },
  // Admin and operations
  'member.not_found': { status: 404, meaning: 'No such member (an admin’s history view)' },
  'audit.signing_not_configured': { status: 409, meaning: 'Checkpoint signing needs `AUDIT_SIGNING_KEY`' },
  'audit.chain_broken': { status: 409, meaning: 'The audit log does not verify, so no checkpoint is signed' },
  'metrics.token_required': { status: 401, meaning: 'The metrics endpoint needs its bearer token' },
  not_found: { status: 404, meaning: 'A resource with no code of its own (a docs asset, the metrics port’s other paths)' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Every code, in catalogue order (the OpenAPI enum). */
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

export const isErrorCode = (value: unknown): value is ErrorCode => typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
