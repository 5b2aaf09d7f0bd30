/**
 * Which event fields are personal data, and how they are sealed into (and opened from) an
 * encrypted envelope in the event's `data` (crypto-shredding).
 *
 * A field is personal when its name says so (an e-mail address in any event: `email`, `userEmail`,
 * `newEmail`…; names; date of birth; IP-derived location `geo*`; IP addresses and user agents; the
 * password hash) or when the event type lists it (`UserRejected.reason`, `UserSuspended.reason`: an
 * admin's free text about a person; `StaffJoined.displayName`: a staff member's name; `ChatMessageSent.text`: a chat message, the admin replies included; `ShowChatMessagePosted.text`: a member's message in a live show's chat room;
 * `CustomRequestSubmitted.description`, `CustomRequestDeclined.reason`: a custom video request and its refusal;
 * `PasskeyRegistered.name`, `.publicKey`: the device name a member chose and the credential that links them to it).
 * The subject is the event's `userId`: the member the data is about. Names are matched, not
 * listed per event type, so a new event that carries an e-mail address is encrypted without anyone
 * remembering to register it. Everything else (ids, satoshi amounts, plans, dates, statuses, Bitcoin
 * addresses and transaction hashes, which are public on the chain and needed for accounting) stays
 * in clear, so the ledger, the audit tools and reconciliation work without any key.
 *
 * Stored form: the personal fields are removed from `data` and replaced by
 * `personal: { alg: 'A256GCM', subject, fields, iv, ct }` — AES-256-GCM of the JSON of those fields under the
 * member's data key, the subject id and event type as associated data. The hash chain covers this
 * stored form, so destroying the key later changes no stored byte.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export const ERASURE_EVENT = 'MemberErased';

const PERSONAL_NAME =
  /^(email|[a-zA-Z]*Email|firstName|lastName|fullName|dateOfBirth|geo[A-Z][a-zA-Z]*|ip|[a-zA-Z]*Ip|userAgent|passwordHash)$/;
const PERSONAL_BY_TYPE: Record<string, readonly string[]> = {
  UserRejected: ['reason'],
  UserSuspended: ['reason'],
  StaffJoined: ['displayName'],
  ChatMessageSent: ['text'],
  ShowChatMessagePosted: ['text'],
  CustomRequestSubmitted: ['description'],
  CustomRequestDeclined: ['reason'],
  PasskeyRegistered: ['name', 'publicKey'],
};

export interface Envelope {
  alg: 'A256GCM';
  subject: string;
  /** The names of the sealed fields (names are not personal; an erased event reads them as placeholders). */
  fields: string[];
  iv: string;
  ct: string;
}

export const shortId = (id: string) => id.slice(0, 8);
/** How an erased member is shown everywhere (payments, audit reports, admin views). */
export const erasedLabel = (id: string) => `erased member ${shortId(id)}`;

/** True when `field` of an event of `type` holds personal data. */
export function isPersonalField(type: string, field: string): boolean {
  if (type === ERASURE_EVENT) return false;
  return PERSONAL_NAME.test(field) || (PERSONAL_BY_TYPE[type]?.includes(field) ?? false);
}

/** What an erased member's field reads as: the label for e-mail fields, "erased" / "member <id>" for names, else null or ''. */
export function placeholder(field: string, subjectId: string): string | null {
  if (/email$/i.test(field)) return erasedLabel(subjectId);
  if (field === 'firstName') return 'erased';
  if (field === 'lastName') return `member ${shortId(subjectId)}`;
  if (field === 'fullName') return erasedLabel(subjectId);
  if (field === 'dateOfBirth' || field === 'passwordHash') return '';
  return null;
}

export function subjectOf(data: Record<string, unknown>): string | undefined {
  return typeof data.userId === 'string' && data.userId !== '' ? data.userId : undefined;
}

export function envelopeOf(data: Record<string, unknown>): Envelope | undefined {
  const p = data.personal as Envelope | undefined;
  return p && typeof p === 'object' && p.alg === 'A256GCM' && typeof p.ct === 'string' ? p : undefined;
}

/** The personal fields present in clear (legacy events and events not sealed yet). */
export function personalFieldsIn(type: string, data: Record<string, unknown>): string[] {
  return Object.keys(data).filter((k) => data[k] !== undefined && isPersonalField(type, k));
}

const aad = (subject: string, type: string) => Buffer.from(`${subject}\n${type}`, 'utf8');

/** Moves the personal fields of `data` into an envelope sealed with `key`. */
export function seal(type: string, data: Record<string, unknown>, subject: string, key: Buffer): Record<string, unknown> {
  const fields = personalFieldsIn(type, data);
  if (fields.length === 0) return data;
  const rest: Record<string, unknown> = {};
  const secret: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    if (fields.includes(k)) secret[k] = v;
    else rest[k] = v;
  }
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad(subject, type));
  const ct = Buffer.concat([cipher.update(JSON.stringify(secret), 'utf8'), cipher.final(), cipher.getAuthTag()]);
  const envelope: Envelope = { alg: 'A256GCM', subject, fields, iv: iv.toString('base64url'), ct: ct.toString('base64url') };
  return { ...rest, personal: envelope };
}

/** The envelope's fields merged back into `data` (the envelope removed). */
export function unseal(type: string, data: Record<string, unknown>, key: Buffer): Record<string, unknown> {
  const envelope = envelopeOf(data) as Envelope;
  const raw = Buffer.from(envelope.ct, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64url'));
  decipher.setAAD(aad(envelope.subject, type));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  const clear = JSON.parse(Buffer.concat([decipher.update(raw.subarray(0, raw.length - 16)), decipher.final()]).toString('utf8'));
  const { personal: _sealed, ...rest } = data;
  return { ...rest, ...clear };
}

/** An erased member's event: every personal field (sealed or in clear) replaced by its placeholder. */
export function erase(type: string, data: Record<string, unknown>, subject: string): Record<string, unknown> {
  const envelope = envelopeOf(data);
  const { personal: _sealed, ...rest } = data;
  const out: Record<string, unknown> = { ...rest };
  for (const f of [...personalFieldsIn(type, rest), ...(envelope?.fields ?? [])]) out[f] = placeholder(f, subject);
  return out;
}
