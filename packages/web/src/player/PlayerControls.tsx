/**
 * The player's control bar: play/pause, time, the seek bar with its previews, volume, the quality
 * menu ("Auto" or one rendition), the CC menu and fullscreen. Every control has a name for screen
 * readers; the state lives in the hooks (usePlayerControls, useAdaptiveEngine, useCaptions,
 * useSeekPreviews).
 */
import { formatDuration } from '@members/ui/format';
import type { Quality } from './adaptiveSource';
import type { PreviewTile } from './previews';
import { SeekPreview } from './SeekPreview';
import type { Captions } from './useCaptions';
import type { PlayerControlsState } from './usePlayerControls';
import { useSeekHover } from './useSeekPreviews';

export interface PlayerControlsProps {
  controls: PlayerControlsState;
  previews: readonly PreviewTile[];
  quality: { qualities: Quality[]; quality: number; setQuality(index: number): void; levelHeight: number | null };
  captions: Captions;
}

export function PlayerControls({ controls, previews, quality, captions }: PlayerControlsProps) {
  const { playing, current, duration, volume, fullscreen } = controls;
  const seekHover = useSeekHover(duration);
  const { hover } = seekHover;
  const { tracks, caption } = captions;
  return (
    <div className="player-controls">
      <button
        type="button"
        className="ctrl"
        onClick={controls.togglePlay}
        aria-label={playing ? 'Pause' : 'Play'}
        aria-keyshortcuts="Space K"
      >
        {playing ? (
          <svg aria-hidden="true" width="20" height="20" viewBox="0 0 24 24" fill="currentColor">
            <path d="M6 5h4v14H6zM14 5h4v14h-4z" />
          </svg>
        ) : (
          <svg aria-hidden="true" width="20" height="20" viewBox="0 0 24 24" fill="currentColor">
            <path d="M8 5v14l11-7z" />
          </svg>
        )}
      </button>
      <span className="time" aria-live="off">
        {formatDuration(current)} / {formatDuration(duration)}
      </span>
      <div className="seek-wrap">
        {hover && previews.length > 0 && <SeekPreview tiles={previews} time={hover.time} fraction={hover.fraction} />}
        <input
          className="seek"
          type="range"
          min={0}
          max={duration || 0}
          step={0.1}
          value={Math.min(current, duration || 0)}
          aria-label="Seek"
          aria-keyshortcuts="ArrowLeft ArrowRight J L Home End"
          data-control="seek"
          aria-valuetext={`${formatDuration(current)} of ${formatDuration(duration)}`}
          onPointerMove={seekHover.at}
          onPointerLeave={seekHover.leave}
          onChange={(e) => {
            const t = Number(e.target.value);
            controls.seek(t);
            // Dragging (or the keyboard) shows the frame it lands on too.
            seekHover.landOn(t);
          }}
          onBlur={seekHover.leave}
        />
      </div>
      <label className="volume">
        <span className="visually-hidden">Volume</span>
        <svg aria-hidden="true" width="20" height="20" viewBox="0 0 24 24" fill="currentColor">
          <path d="M3 9v6h4l5 5V4L7 9H3zm13.5 3A4.5 4.5 0 0 0 14 8v8a4.5 4.5 0 0 0 2.5-4z" />
        </svg>
        <input
          type="range"
          min={0}
          max={1}
          step={0.1}
          value={volume}
          aria-label="Volume"
          aria-valuetext={`${Math.round(volume * 100)}%`}
          onChange={(e) => controls.setVolume(Number(e.target.value))}
        />
      </label>
      {quality.qualities.length > 0 && (
        <label className="quality">
          <span className="visually-hidden">Quality</span>
          <select
            className="quality-select"
            aria-label="Quality"
            value={quality.quality}
            onChange={(e) => quality.setQuality(Number(e.target.value))}
          >
            <option value={-1}>{quality.quality === -1 && quality.levelHeight ? `Auto (${quality.levelHeight}p)` : 'Auto'}</option>
            {quality.qualities.map((q) => (
              <option key={q.index} value={q.index}>
                {q.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {tracks.length > 0 && (
        <div className="captions">
          <button
            ref={captions.buttonRef}
            type="button"
            className={`ctrl cc${caption ? ' is-on' : ''}`}
            aria-label="Captions"
            aria-haspopup="menu"
            aria-expanded={captions.menuOpen}
            aria-controls="captions-menu"
            data-caption={caption ?? 'off'}
            onClick={captions.toggleMenu}
          >
            CC
          </button>
          {captions.menuOpen && (
            <div
              id="captions-menu"
              ref={captions.menuRef}
              className="captions-menu"
              role="menu"
              aria-label="Captions"
              tabIndex={-1}
              onKeyDown={captions.menuKeys}
            >
              {[{ language: null as string | null, label: 'Off' }, ...tracks].map((t) => (
                <button
                  key={t.language ?? 'off'}
                  type="button"
                  role="menuitemradio"
                  aria-checked={caption === t.language}
                  lang={t.language ?? undefined}
                  tabIndex={-1}
                  onClick={() => captions.pick(t.language)}
                >
                  {t.label}
                </button>
              ))}
            </div>
          )}
        </div>
      )}
      <button type="button" className="ctrl" onClick={controls.toggleFullscreen} aria-label={fullscreen ? 'Exit fullscreen' : 'Fullscreen'}>
        <svg aria-hidden="true" width="20" height="20" viewBox="0 0 24 24" fill="currentColor">
          {fullscreen ? (
            <path d="M5 16h3v3h2v-5H5v2zm3-8H5v2h5V5H8v3zm6 11h2v-3h3v-2h-5v5zm2-11V5h-2v5h5V8h-3z" />
          ) : (
            <path d="M7 14H5v5h5v-2H7v-3zm-2-4h2V7h3V5H5v5zm12 7h-3v2h5v-5h-2v3zM14 5v2h3v3h2V5h-5z" />
          )}
        </svg>
      </button>
    </div>
  );
}
