/**
 * The seek-bar preview: the sprite tile for the hovered (or dragged-to) time, above the bar, with
 * the time under it. The tiles come from useSeekPreviews.ts.
 */
import { formatDuration } from '@members/ui/format';
import type { PreviewTile } from './previews';
import { tileAt } from './previews';

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
