/**
 * The release this code is (semantic versioning): every package.json's `version`, CHANGELOG.md's
 * newest released section and the OpenAPI document's `info.version` (version.unit.test.ts keeps
 * them equal). Bump them together when a release is cut (docs/upgrading.md).
 */
export const APP_VERSION = '1.0.0';
