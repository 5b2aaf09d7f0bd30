/**
 * The secure player overlay of spec §2 and §9: a modal at most 1200 px wide with custom controls,
 * a moving watermark, no download / picture-in-picture / remote playback, blocked context menu and
 * shortcuts, a play-time counter, and the view sent on close after more than 5 s of watching.
 * It composes one hook per concern, each in its own file: the stream grant and its failures
 * (usePlayerStream: 'Access Restricted', or 'Playback failed' with a retry, failure.ts), the
 * engine choice (useAdaptiveEngine: hls.js, native HLS on Safari, the progressive file), the stall
 * watchdog (useStallWatchdog), the keys (usePlayerKeys: protection, then playerKeys.ts), the seek
 * previews (useSeekPreviews), the controls (usePlayerControls, drawn by PlayerControls.tsx with the
 * quality menu and the captions' CC menu of useCaptions), the view counter and the watermark.
 */
import type { Video } from '@members/ui/api';
import { formatDuration } from '@members/ui/format';
import { useCallback, useEffect, useRef } from 'react';
import { NOT_READY, PLAYBACK_FAILED } from './failure';
import { PlayerControls } from './PlayerControls';
import { requestPause } from './playRequest';
import { useAdaptiveEngine } from './useAdaptiveEngine';
import { useCaptions } from './useCaptions';
import { usePlayerControls } from './usePlayerControls';
import { usePlayerKeys } from './usePlayerKeys';
import { usePlayerStream } from './usePlayerStream';
import { useSeekPreviews } from './useSeekPreviews';
import { useStallWatchdog } from './useStallWatchdog';
import { useViewCounter } from './useViewCounter';
import { useWatchTime } from './useWatchTime';
import { useWatermark } from './useWatermark';

export interface SecurePlayerProps {
  video: Video;
  onClose(): void;
}

export default function SecurePlayer({ video, onClose }: SecurePlayerProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const { state, stream, alertRef, fail, retry } = usePlayerStream(video);
  const controls = usePlayerControls(video.duration ?? 0);
  const { videoRef } = controls;
  const adaptive = useAdaptiveEngine(videoRef, stream, fail);
  useStallWatchdog(videoRef, adaptive.engine === 'hls.js', stream);
  const captions = useCaptions(videoRef, stream);
  const previews = useSeekPreviews(stream?.previewsUrl ?? null);
  usePlayerKeys(dialogRef, videoRef, controls.durationRef, controls.setCurrent);
  const { watched, sendView } = useViewCounter(video.id, controls.playing);
  useWatchTime(video.id, controls.playing);
  const mark = useWatermark();

  // A modal dialog: top layer, focus inside, Escape closes.
  useEffect(() => {
    const d = dialogRef.current;
    if (d && !d.open) d.showModal?.();
  }, []);

  const close = useCallback(() => {
    if (videoRef.current) requestPause(videoRef.current);
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    sendView();
    dialogRef.current?.close();
    onClose();
  }, [onClose, sendView, videoRef]);

  const tags = video.tags ?? [];

  return (
    <dialog
      ref={dialogRef}
      className="player-overlay"
      aria-label={`Video player: ${video.title}`}
      onCancel={(e) => {
        e.preventDefault();
        close();
      }}
      onContextMenu={(e) => e.preventDefault()}
    >
      <div className="player-box">
        <div className="player-head">
          <h2 className="player-title">{video.title}</h2>
          <button type="button" className="btn btn-ghost btn-sm" onClick={close} aria-label="Close player">
            Close
          </button>
        </div>

        {state.kind === 'loading' && (
          <div className="player-message" role="status">
            Loading video...
          </div>
        )}
        {state.kind === 'error' && state.failure === 'refused' && (
          <div className="player-message" role="alert">
            <h3 ref={alertRef} tabIndex={-1}>
              Access Restricted
            </h3>
            <p>{state.message}</p>
            <button type="button" className="btn btn-secondary" onClick={close}>
              Go Back
            </button>
          </div>
        )}
        {state.kind === 'error' && state.failure !== 'refused' && (
          <div className="player-message" role="alert" data-problem={adaptive.problem ?? state.message}>
            <h3 ref={alertRef} tabIndex={-1}>
              {state.failure === 'preparing' ? NOT_READY.heading : PLAYBACK_FAILED.heading}
            </h3>
            <p>{state.failure === 'preparing' ? NOT_READY.message : PLAYBACK_FAILED.message}</p>
            <div className="player-message-actions">
              <button type="button" className="btn btn-primary" onClick={retry}>
                Try again
              </button>
              <button type="button" className="btn btn-secondary" onClick={close}>
                Go Back
              </button>
            </div>
          </div>
        )}
        {state.kind === 'ready' && (
          <>
            <div ref={controls.frameRef} className={`player-frame${controls.fullscreen ? ' is-fullscreen' : ''}`}>
              <video
                ref={controls.attachVideo}
                data-testid="secure-video"
                data-engine={adaptive.engine ?? undefined}
                data-level={adaptive.levelHeight ?? undefined}
                data-problem={adaptive.problem ?? undefined}
                playsInline
                preload="metadata"
                controlsList="nodownload"
                disablePictureInPicture
                {...controls.mediaEvents}
              >
                {captions.tracks.map((t) => (
                  <track key={t.language} kind="captions" srcLang={t.language} label={t.label} src={t.url} />
                ))}
              </video>
              <div className="watermark" data-testid="watermark" aria-hidden="true" style={{ top: `${mark.top}%`, left: `${mark.left}%` }}>
                {state.stream.watermarkText}
              </div>
              <PlayerControls
                controls={controls}
                previews={previews}
                quality={{
                  qualities: adaptive.qualities,
                  quality: adaptive.quality,
                  setQuality: adaptive.setQuality,
                  levelHeight: adaptive.levelHeight,
                }}
                captions={captions}
              />
            </div>
            <div className="player-info">
              <span>Duration: {formatDuration(video.duration ?? controls.duration)}</span>
              <span>Views: {(video.viewCount ?? 0).toLocaleString('en-US')}</span>
              {video.modelName && <span>Model: {video.modelName}</span>}
              <span data-testid="watched">Watched: {formatDuration(watched)}</span>
              {tags.length > 0 && <span>Tags: {tags.join(', ')}</span>}
            </div>
          </>
        )}
      </div>
    </dialog>
  );
}
