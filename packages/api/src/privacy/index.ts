/**
 * The privacy area: per-member data keys and crypto-shredding (dataKeys.ts, shredder.ts), what
 * counts as personal data (personalData.ts). Other areas import it from here.
 */
export { DataKeyError, dataKeyFor, dataKeyRows, type MasterKeys, masterKeysOf, unwrapKey } from './dataKeys.js';
