/** Ed25519 checkpoints: sign, verify, reject a changed field or another key, accept raw base64 keys. */
import { createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSigningKeys, parsePrivateKey, rawPublicKey, signCheckpoint, verifyCheckpointSignature } from './checkpoint.js';

describe('signed checkpoints', () => {
  const keys = generateSigningKeys();
  const cp = { position: 1200, hash: 'ab'.repeat(32), time: '2026-11-22T12:00:00.000Z' };

  it('verifies with the public key and fails on any change', () => {
    const signed = signCheckpoint(cp, keys.privateKey);
    expect(signed).toMatchObject({ ...cp, algorithm: 'Ed25519' });
    expect(verifyCheckpointSignature(signed, keys.publicKey)).toBe(true);
    expect(verifyCheckpointSignature({ ...signed, position: 1201 }, keys.publicKey)).toBe(false);
    expect(verifyCheckpointSignature({ ...signed, hash: 'cd'.repeat(32) }, keys.publicKey)).toBe(false);
    expect(verifyCheckpointSignature({ ...signed, time: '2026-11-23T12:00:00.000Z' }, keys.publicKey)).toBe(false);
    expect(verifyCheckpointSignature(signed, generateSigningKeys().publicKey)).toBe(false);
  });

  it('accepts base64 DER and raw 32-byte keys', () => {
    const der = (createPrivateKey(keys.privateKey).export({ format: 'der', type: 'pkcs8' }) as Buffer).toString('base64');
    const raw = Buffer.from(der, 'base64').subarray(16).toString('base64');
    const a = signCheckpoint(cp, der);
    const b = signCheckpoint(cp, raw);
    expect(a.signature).toBe(b.signature); // Ed25519 is deterministic
    expect(verifyCheckpointSignature(a, a.publicKey)).toBe(true);
    expect(rawPublicKey(parsePrivateKey(raw))).toBe(a.publicKey);
  });
});
