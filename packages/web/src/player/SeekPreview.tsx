/**
 * The seek-bar preview: the sprite tile for the hovered (or dragged-to) time, above the bar, with
 * the time under it. The tiles come from the stream's WebVTT (`previewsUrl`), fetched once.
 */
import { formatDuration } from '@members/ui/format';
import { useEffect, useState } from 'react';
import { type PreviewTile, parsePreviewsVtt, tileAt } from './previews';

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

export function SeekPreview({ tiles, time, fraction }: { tiles: readonly PreviewTile[]; time: number; fraction: number }) {
  const tile = tileAt(tiles, time);
  if (!tile) return null;
  return (
    <div className="seek-preview" data-testid="seek-preview" aria-hidden="true" style={{ left: `${fraction * 100}%` }}>
      <div
        className="seek-preview-image"
        style={{ width: tile.w, height: tile.h, backgroundImage: `url("${tile.url}")`, backgroundPosition: `-${tile.x}px -${tile.y}px` }}
      />
      <span className="seek-preview-time">{formatDuration(time)}</span>
    </div>
  );
}
