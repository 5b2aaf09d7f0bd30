/**
 * The API's test-support entry point: the only API module the other packages' tests (the web
 * app's browser tests in `packages/web/e2e`, the desktop console's tests) import. It starts a real
 * server over a fresh store and seeds it through the real routes; nothing here reaches into a
 * module's tables. Keep it small: add an export here rather than importing `packages/api/src/…`
 * from another package.
 */

export { billingTestKit, HASH, seedMember } from '../src/billing/billing.testkit.js';
export { runLifecycle } from '../src/billing/index.js';
export { approvedMember } from '../src/identity/identity.testkit.js';
export { acceptedStaff } from '../src/identity/staff.testkit.js';
export { totpCode } from '../src/identity/totp.js';
export { wrongTotpCode } from '../src/identity/totp.testkit.js';
export { freePort, pushRtmp } from '../src/live/live.testkit.js';
export { mailsTo } from '../src/mail/outbox.testkit.js';
export { filesUnder, makeImage, makeMp4, makeSizedClip } from '../src/media/media.testkit.js';
export { TestClock } from '../src/shared/clock.testkit.js';
export { killAll, type Runner, startTokenRunner } from '../src/transcode/runners.testkit.js';
export { postUpload, uploadTranscoded, waitTranscoded } from '../src/uploads/upload.testkit.js';
export { adminToken } from './adminToken.js';
export { type BcoinNode, freshRegtestAddress, startBcoinNode } from './bitcoin/bcoinNode.testkit.js';
export { type ChildServer, killHard, launchServer, runCli } from './childServer.js';
export {
  apiClient,
  forEachStore,
  freshStore,
  startTestServer,
  TEST_ADMIN,
  TEST_DATABASE_URL,
  type TestServer,
  testEnv,
  tmpDir,
} from './harness.js';
export { bucketKeys, freshBucket, mediaKinds } from './s3.js';
