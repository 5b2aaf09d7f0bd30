/**
 * The seek previews: the sprite tiles of the stream's WebVTT (`previewsUrl`), fetched once, and
 * the time the pointer hovers over the seek bar (or the keyboard or a drag lands on), which
 * SeekPreview.tsx shows.
 */
import { useEffect, useState } from 'react';
import { type PreviewTile, parsePreviewsVtt } from './previews';

export function useSeekPreviews(previewsUrl: string | null | undefined): PreviewTile[] {
  const [tiles, setTiles] = useState<PreviewTile[]>([]);
  useEffect(() => {
    setTiles([]);
    if (!previewsUrl) return;
    let active = true;
    // A same-origin path from the API: the tiles resolve against it as the page's address sees it.
    const url = new URL(previewsUrl, window.location.href).toString();
    fetch(url, { credentials: 'omit' })
      .then((r) => (r.ok ? r.text() : ''))
      .then((text) => active && setTiles(parsePreviewsVtt(text, url)))
      .catch(() => {});
    return () => {
      active = false;
    };
  }, [previewsUrl]);
  return tiles;
}

export interface SeekHover {
  time: number;
  fraction: number;
}

/** The seek bar's hovered time: `at` from a pointer over the bar, `landOn` after a seek, `leave` to hide. */
export function useSeekHover(duration: number) {
  const [hover, setHover] = useState<SeekHover | null>(null);
  return {
    hover,
    at(e: { clientX: number; currentTarget: Element }) {
      const box = e.currentTarget.getBoundingClientRect();
      const fraction = Math.min(1, Math.max(0, (e.clientX - box.left) / (box.width || 1)));
      setHover({ time: fraction * (duration || 0), fraction });
    },
    landOn(time: number) {
      if (duration) setHover({ time, fraction: time / duration });
    },
    leave: () => setHover(null),
  };
}
