/**
 * Signed checkpoints: the hash at a position and a time, signed with an Ed25519 key (node:crypto).
 * An auditor who holds the public key can later prove the log had exactly that state then — and a
 * log truncated or rewritten since no longer reaches that hash at that position.
 *
 * The signed bytes are the UTF-8 canonical JSON of `{ hash, position, time }` (keys sorted, no
 * whitespace), e.g. `{"hash":"9f…","position":1200,"time":"2026-11-22T12:00:00.000Z"}`.
 * Keys: PEM (PKCS#8 private / SPKI public), base64 of that DER, or base64 of the raw 32 bytes.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { canonicalJson } from '../eventstore/hashChain.js';

export interface Checkpoint {
  position: number;
  hash: string;
  time: string;
}

export interface SignedCheckpoint extends Checkpoint {
  algorithm: 'Ed25519';
  /** base64 of the 64-byte Ed25519 signature. */
  signature: string;
  /** base64 of the raw 32-byte public key, so a reader knows which key signed it. */
  publicKey: string;
}

// DER prefixes that wrap a raw 32-byte Ed25519 key as PKCS#8 / SPKI.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export function parsePrivateKey(text: string): KeyObject {
  const t = text.trim();
  if (t.startsWith('-----')) return createPrivateKey(t);
  const der = Buffer.from(t, 'base64');
  const key = der.length === 32 ? Buffer.concat([PKCS8_PREFIX, der]) : der;
  return createPrivateKey({ key, format: 'der', type: 'pkcs8' });
}

export function parsePublicKey(text: string): KeyObject {
  const t = text.trim();
  if (t.startsWith('-----')) return createPublicKey(t);
  const der = Buffer.from(t, 'base64');
  const key = der.length === 32 ? Buffer.concat([SPKI_PREFIX, der]) : der;
  return createPublicKey({ key, format: 'der', type: 'spki' });
}

export function rawPublicKey(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return (pub.export({ format: 'der', type: 'spki' }) as Buffer).subarray(SPKI_PREFIX.length).toString('base64');
}

function signedBytes(c: Checkpoint): Buffer {
  return Buffer.from(canonicalJson({ hash: c.hash, position: c.position, time: c.time }), 'utf8');
}

/** @example signCheckpoint({ position: 1200, hash, time: new Date().toISOString() }, env.AUDIT_SIGNING_KEY) */
export function signCheckpoint(c: Checkpoint, privateKey: string | KeyObject): SignedCheckpoint {
  const key = typeof privateKey === 'string' ? parsePrivateKey(privateKey) : privateKey;
  const signature = sign(null, signedBytes(c), key).toString('base64');
  return { position: c.position, hash: c.hash, time: c.time, algorithm: 'Ed25519', signature, publicKey: rawPublicKey(key) };
}

/** True when `signature` is a valid Ed25519 signature of the checkpoint by `publicKey`. */
export function verifyCheckpointSignature(c: SignedCheckpoint, publicKey: string | KeyObject): boolean {
  const key = typeof publicKey === 'string' ? parsePublicKey(publicKey) : publicKey;
  try {
    return verify(null, signedBytes(c), key, Buffer.from(c.signature, 'base64'));
  } catch {
    return false;
  }
}

/** A fresh key pair as PEM (for `pnpm cli audit keygen` and tests). */
export function generateSigningKeys(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKey: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}
