/**
 * A software passkey authenticator for the API's tests: ES256 keys held in memory, answers built as
 * a browser serialises them (@simplewebauthn/browser's JSON), signed for real, so the server's
 * verification runs unchanged. Each answer can be bent the way an attacker would bend it (another
 * origin, no user verification, a foreign key, a counter that goes back). The browser tests use
 * Chromium's own virtual authenticator instead.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64u = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | Buffer | string) => createHash('sha256').update(data).digest();

interface Credential {
  id: string;
  privateKey: KeyObject;
  userHandle: string;
  counter: number;
}

export interface AnswerOptions {
  origin?: string;
  /** Clear the user-verified flag (a tap without PIN or biometric). */
  noUserVerification?: boolean;
  /** Sign with this key instead of the credential's (someone who knows only its id). */
  signWith?: KeyObject;
  /** Report this counter instead of the next one. */
  counter?: number;
  userHandle?: string;
  /** Registration: name this credential id (an attestation of type 'none' lets the client choose it). */
  credentialId?: string;
}

export class SoftAuthenticator {
  readonly credentials = new Map<string, Credential>();

  /** `counting`: a counter that grows with each use (security keys); passkeys of platforms keep 0. */
  constructor(
    readonly origin: string,
    private readonly counting = false,
  ) {}

  get rpId(): string {
    return new URL(this.origin).hostname;
  }

  private authData(flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), count, attested ?? Buffer.alloc(0)]);
  }

  /** The answer to registration `options` (PublicKeyCredentialCreationOptionsJSON). */
  create(options: { challenge: string; user: { id: string } }, opts: AnswerOptions = {}) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const idBytes = opts.credentialId ? Buffer.from(opts.credentialId, 'base64url') : randomBytes(16);
    const id = b64u(idBytes);
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, new Uint8Array(Buffer.from(jwk.x as string, 'base64url'))],
        [-3, new Uint8Array(Buffer.from(jwk.y as string, 'base64url'))],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(idBytes.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, idBytes, Buffer.from(cose)]);
    const flags = 0x01 | (opts.noUserVerification ? 0 : 0x04) | 0x40;
    const authData = this.authData(flags, 0, attested);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    const clientData = { type: 'webauthn.create', challenge: options.challenge, origin: opts.origin ?? this.origin, crossOrigin: false };
    this.credentials.set(id, { id, privateKey, userHandle: options.user.id, counter: 0 });
    return {
      id,
      rawId: id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64u(Buffer.from(JSON.stringify(clientData))),
        attestationObject: b64u(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    };
  }

  /** The answer to sign-in `options` (PublicKeyCredentialRequestOptionsJSON) with credential `id` (the only one by default). */
  get(options: { challenge: string }, id?: string, opts: AnswerOptions = {}) {
    const credential = id ? this.credentials.get(id) : [...this.credentials.values()][0];
    if (!credential) throw new Error('SoftAuthenticator: no such credential');
    if (this.counting) credential.counter += 1;
    const counter = opts.counter ?? credential.counter;
    const authData = this.authData(0x01 | (opts.noUserVerification ? 0 : 0x04), counter);
    const clientDataJSON = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: opts.origin ?? this.origin, crossOrigin: false }),
    );
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), opts.signWith ?? credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: opts.userHandle ?? credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    };
  }
}

/** A fresh P-256 private key (to sign as someone who does not hold the credential). */
export const foreignKey = (): KeyObject => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
