/**
 * Recognises thumbnail images by their first bytes (magic numbers), never by name or declared
 * type: a renamed text file is not an image.
 */
import fs from 'node:fs/promises';

export interface ImageType {
  mimeType: 'image/jpeg' | 'image/png' | 'image/webp';
  extension: 'jpg' | 'png' | 'webp';
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The image type of these leading bytes, or null when they are not JPEG, PNG or WebP. */
export function sniffImageType(head: Uint8Array): ImageType | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { mimeType: 'image/jpeg', extension: 'jpg' };
  if (head.length >= 8 && PNG.every((b, i) => head[i] === b)) return { mimeType: 'image/png', extension: 'png' };
  const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  if (head.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return { mimeType: 'image/webp', extension: 'webp' };
  return null;
}

/** Reads the first bytes of a file and sniffs them. */
export async function imageTypeOfFile(filePath: string): Promise<ImageType | null> {
  const fh = await fs.open(filePath, 'r');
  try {
    const buf = Buffer.alloc(16);
    const { bytesRead } = await fh.read(buf, 0, 16, 0);
    return sniffImageType(buf.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}
