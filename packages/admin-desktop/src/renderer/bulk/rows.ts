/**
 * The bulk upload table's rows as plain data: one per chosen file, defaults taken from the file
 * (title from the name, duration from ffprobe), edits applied to one row or to every selected row,
 * and the upload request built only from rows that are videos. No React, so it is unit-tested.
 */
import { formatDuration, localInputToIso } from '@members/ui/format';
import type { MediaInfo, UploadItemSnapshot, UploadMetadata } from '../../shared/ipc.js';

export type AccessLevel = 'free' | 'premium' | 'vip';
export const ACCESS_LEVELS: AccessLevel[] = ['free', 'premium', 'vip'];
export const OTHER_MODEL = 'Other';

export interface RowFields {
  title: string;
  model: string;
  accessLevel: AccessLevel;
  /** Comma-separated, as typed. */
  tags: string;
  description: string;
  /** 'annual': the behind-the-scenes videos only the annual plan watches; '' for every plan the access level allows. */
  exclusiveTo: '' | 'annual';
  /** When it is released, as the datetime-local input holds it (the console's time zone); '' for at once. */
  publishAt: string;
}

export interface BulkRow extends RowFields {
  id: string;
  path: string;
  fileName: string;
  /** 'probing' until ffprobe answered. */
  probe: 'probing' | 'done' | 'error';
  info?: MediaInfo;
  error?: string;
  selected: boolean;
  /** The id of this row's current entry in the upload queue (a new one per send). */
  queueId?: string;
  sends: number;
  upload?: UploadItemSnapshot;
}

/** "golden_hour-final.v2.mp4" → "Golden hour final v2". */
export function titleFromFileName(fileName: string): string {
  const base = fileName.replace(/\.[^.]+$/, '');
  const words = base.replace(/[_\-.\s]+/g, ' ').trim();
  if (!words) return fileName;
  return words.charAt(0).toUpperCase() + words.slice(1);
}

let seq = 0;
export function newRow(filePath: string): BulkRow {
  const fileName = filePath.split(/[\\/]/).pop() ?? filePath;
  seq += 1;
  return {
    id: `row-${Date.now().toString(36)}-${seq}`,
    path: filePath,
    fileName,
    probe: 'probing',
    selected: false,
    sends: 0,
    title: titleFromFileName(fileName),
    model: '',
    accessLevel: 'premium',
    tags: '',
    description: '',
    exclusiveTo: '',
    publishAt: '',
  };
}

export function isVideoRow(row: BulkRow): boolean {
  return row.probe === 'done' && Boolean(row.info?.isVideo);
}

/** A row may be (re)sent when it is a video that is not uploading or done. */
export function isSendable(row: BulkRow): boolean {
  if (!isVideoRow(row) || row.title.trim() === '') return false;
  const state = row.upload?.state;
  return state === undefined || state === 'canceled';
}

export function applyToRow(rows: BulkRow[], id: string, patch: Partial<RowFields>): BulkRow[] {
  return rows.map((r) => (r.id === id ? { ...r, ...patch } : r));
}

/**
 * Applies only the fields given (non-empty text, chosen selects) to every selected row. The two
 * release fields say "leave alone" with undefined, so '' can clear them: `exclusiveTo: ''` makes the
 * rows watchable by every plan again, `publishAt: ''` releases them at once.
 */
export function applyToSelected(rows: BulkRow[], patch: Partial<RowFields>): BulkRow[] {
  const clean: Partial<RowFields> = {};
  for (const [k, v] of Object.entries(patch) as Array<[keyof RowFields, string]>) {
    const clearable = k === 'exclusiveTo' || k === 'publishAt';
    if (v !== undefined && (v !== '' || clearable)) (clean as Record<string, string>)[k] = v;
  }
  return rows.map((r) => (r.selected ? { ...r, ...clean } : r));
}

export function splitTags(text: string): string[] {
  const out: string[] = [];
  for (const t of text.split(',')) {
    const tag = t.trim();
    if (tag && !out.some((x) => x.toLowerCase() === tag.toLowerCase())) out.push(tag);
  }
  return out;
}

export function metadataOf(row: BulkRow): UploadMetadata {
  const meta: UploadMetadata = { title: row.title.trim(), accessLevel: row.accessLevel };
  if (row.model) meta.model = row.model;
  if (row.description.trim()) meta.description = row.description.trim();
  const tags = splitTags(row.tags);
  if (tags.length) meta.tags = tags;
  if (row.info?.durationSeconds) meta.durationText = formatDuration(row.info.durationSeconds);
  if (row.exclusiveTo) meta.exclusiveTo = row.exclusiveTo;
  const publishAt = localInputToIso(row.publishAt);
  if (publishAt) meta.publishAt = publishAt;
  return meta;
}

/** "1.5 MB", "830 KB". */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return '0 B';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  const k = Math.min(units.length - 1, Math.floor(Math.log(n) / Math.log(1024)));
  const v = n / 1024 ** k;
  return `${v >= 100 || k === 0 ? Math.round(v) : v.toFixed(1)} ${units[k]}`;
}

export function formatSpeed(bytesPerSecond: number): string {
  return bytesPerSecond > 0 ? `${formatBytes(bytesPerSecond)}/s` : '—';
}
