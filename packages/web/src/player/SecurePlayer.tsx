/**
 * The secure player overlay of spec §2 and §9: a modal at most 1200 px wide with custom controls,
 * a moving watermark, no download / picture-in-picture / remote playback, blocked context menu and
 * shortcuts, a play-time counter, and the view sent on close after more than 5 s of watching.
 * The picture is the adaptive HLS stream when the video is transcoded (adaptiveSource.ts: hls.js,
 * native HLS on Safari, the progressive file as the fallback) with a quality menu ("Auto" or one
 * rendition) and seek previews over the seek bar (SeekPreview.tsx). Every control has a name for
 * screen readers, and the keyboard plays, pauses and seeks (playerKeys.ts). When nothing can be
 * shown, a refusal of access reads 'Access Restricted' and a fetch or decode failure after access
 * was granted reads 'Playback failed' with a retry (failure.ts). Caption tracks are `<track>`
 * elements over the signed WebVTT URLs (every engine renders them, hls.js or native or progressive),
 * chosen in the CC menu (a menu button, arrow keys inside it, Escape closes) and remembered for the
 * member's next videos (captions.ts).
 */
import { accessDecision } from '@members/ui/access';
import type { StreamInfo, Video } from '@members/ui/api';
import { formatDuration } from '@members/ui/format';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../app/api';
import { useGeo } from '../app/geo';
import { useSession } from '../app/session';
import { type AdaptiveSource, attachStream, type Engine, type Quality, type StreamProblem } from './adaptiveSource';
import { chooseCaption, rememberCaption, rememberedCaption, showCaption } from './captions';
import { type FailureKind, mediaFailure, NOT_READY, nothingToPlay, PLAYBACK_FAILED, streamRequestFailure } from './failure';
import { keyTargetOf, playerKeyAction } from './playerKeys';
import { isBlockedShortcut, MIN_VIEW_SECONDS, randomWatermarkPosition, WATERMARK_MOVE_MS } from './protection';
import { SeekPreview, useSeekPreviews } from './SeekPreview';

type StreamState = { kind: 'loading' } | { kind: 'error'; failure: FailureKind; message: string } | { kind: 'ready'; stream: StreamInfo };

export interface SecurePlayerProps {
  video: Video;
  onClose(): void;
}

export default function SecurePlayer({ video, onClose }: SecurePlayerProps) {
  const { user } = useSession();
  const geo = useGeo();
  const qc = useQueryClient();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const frameRef = useRef<HTMLDivElement>(null);
  const videoRef = useRef<HTMLVideoElement>(null);
  const watchedRef = useRef(0);
  const sentRef = useRef(false);
  const [state, setState] = useState<StreamState>({ kind: 'loading' });
  // "Try again" after a playback failure asks for the stream afresh.
  const [attempt, setAttempt] = useState(0);
  const alertRef = useRef<HTMLHeadingElement>(null);
  const [playing, setPlaying] = useState(false);
  const [current, setCurrent] = useState(0);
  const [duration, setDuration] = useState(video.duration ?? 0);
  const durationRef = useRef(duration);
  durationRef.current = duration;
  const [volume, setVolume] = useState(1);
  const [fullscreen, setFullscreen] = useState(false);
  const [watched, setWatched] = useState(0);
  const [mark, setMark] = useState(randomWatermarkPosition);
  // The same decision the detail page and the API make; its message is the spec's catalogue's.
  const decision = accessDecision({ video, geo: { loading: geo.loading, blocked: geo.blocked }, user });
  const refusal = decision.allowed ? null : decision.reason;
  const refusalMessage = decision.message;
  const [engine, setEngine] = useState<Engine | null>(null);
  const [qualities, setQualities] = useState<Quality[]>([]);
  const [quality, setQuality] = useState(-1);
  const [levelHeight, setLevelHeight] = useState<number | null>(null);
  // The last stream problem (adaptiveSource.ts), on the element for whoever diagnoses a stall.
  const [problem, setProblem] = useState<string | null>(null);
  const [hover, setHover] = useState<{ time: number; fraction: number } | null>(null);
  const sourceRef = useRef<AdaptiveSource | null>(null);
  // Every problem of this attempt, to tell a refused fetch from a failed decode when the last engine gives up.
  const problemsRef = useRef<StreamProblem[]>([]);
  const previews = useSeekPreviews(state.kind === 'ready' ? state.stream.previewsUrl : null);
  const [caption, setCaption] = useState<string | null>(null);
  const [captionMenu, setCaptionMenu] = useState(false);
  const captionButtonRef = useRef<HTMLButtonElement>(null);
  const captionMenuRef = useRef<HTMLDivElement>(null);

  // 1. The stream is asked for only when the user may watch (spec §4, §5).
  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` asks again on "Try again"
  useEffect(() => {
    let active = true;
    if (refusal === 'geo_loading') return;
    if (refusal) {
      setState({ kind: 'error', failure: 'refused', message: refusalMessage ?? 'Failed to load video' });
      return;
    }
    setState({ kind: 'loading' });
    api
      .getStream(video.id)
      .then((stream) => {
        if (!active) return;
        if (nothingToPlay(stream)) setState({ kind: 'error', failure: 'preparing', message: NOT_READY.message });
        else setState({ kind: 'ready', stream });
      })
      .catch(
        (err: Error & { status?: number }) =>
          active && setState({ kind: 'error', failure: streamRequestFailure(err.status), message: err.message || 'Failed to load video' }),
      );
    return () => {
      active = false;
    };
  }, [video.id, refusal, refusalMessage, attempt]);

  // 1b. The picture: adaptive HLS when transcoded, else (or on a fatal HLS error) the original file.
  const stream = state.kind === 'ready' ? state.stream : null;
  useEffect(() => {
    const el = videoRef.current;
    if (!stream || !el) return;
    let active = true;
    let source: AdaptiveSource | null = null;
    problemsRef.current = [];
    setProblem(null);
    attachStream(el, stream, {
      onQualities: (q) => active && setQualities(q),
      onLevel: (h) => active && setLevelHeight(h),
      onFallback: () => {
        if (!active) return;
        setEngine('progressive');
        setQualities([]);
      },
      onProblem: (p) => {
        if (!active) return;
        problemsRef.current.push(p);
        setProblem(`${p.engine} ${p.details}${p.status ? ` ${p.status}` : ''}${p.fatal ? ' (fatal)' : ''}`);
        // Nothing left to fall back to: say so instead of showing a black frame for ever, and say
        // which: refused on the way, or fetched and not playable (failure.ts).
        if (p.fatal && p.engine !== 'hls.js')
          setState({ kind: 'error', failure: mediaFailure(problemsRef.current), message: 'Failed to load video' });
      },
    }).then((s) => {
      if (!active) return s.destroy();
      source = s;
      sourceRef.current = s;
      setEngine(s.engine);
    });
    return () => {
      active = false;
      source?.destroy();
      sourceRef.current = null;
    };
  }, [stream]);

  // 1c'. Captions: the member's remembered language when this video has it; shown on the element
  // (again whenever a text track is added: native HLS adds the master's own, kept hidden).
  const tracks = stream?.captions ?? [];
  useEffect(() => {
    setCaption(stream ? chooseCaption(stream.captions ?? [], rememberedCaption()) : null);
  }, [stream]);
  useEffect(() => {
    const el = videoRef.current;
    if (!el || !stream) return;
    const apply = () => showCaption(el, caption);
    apply();
    el.textTracks.addEventListener('addtrack', apply);
    return () => el.textTracks.removeEventListener('addtrack', apply);
  }, [caption, stream]);
  useEffect(() => {
    if (!captionMenu) return;
    const menu = captionMenuRef.current;
    (menu?.querySelector<HTMLElement>('[aria-checked=true]') ?? menu?.querySelector<HTMLElement>('[role=menuitemradio]'))?.focus();
  }, [captionMenu]);

  function pickCaption(language: string | null) {
    setCaption(language);
    rememberCaption(language);
    setCaptionMenu(false);
    captionButtonRef.current?.focus();
  }

  function captionMenuKeys(e: React.KeyboardEvent<HTMLDivElement>) {
    const items = [...(captionMenuRef.current?.querySelectorAll<HTMLElement>('[role=menuitemradio]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const go = (i: number) => items[(i + items.length) % items.length]?.focus();
    if (e.key === 'ArrowDown') go(at + 1);
    else if (e.key === 'ArrowUp') go(at - 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(items.length - 1);
    else if (e.key === 'Escape' || e.key === 'Tab') {
      setCaptionMenu(false);
      if (e.key === 'Tab') return;
      captionButtonRef.current?.focus();
    } else return;
    e.preventDefault();
  }

  // 1c. A failure takes the focus, so a keyboard or screen-reader user lands on what happened and its actions.
  useEffect(() => {
    if (state.kind === 'error') alertRef.current?.focus();
  }, [state]);

  // 2. A modal dialog: top layer, focus inside, Escape closes.
  useEffect(() => {
    const d = dialogRef.current;
    if (d && !d.open) d.showModal?.();
  }, []);

  // 3. Protection: shortcuts swallowed while the overlay is open.
  useEffect(() => {
    function blockKeys(e: KeyboardEvent) {
      if (isBlockedShortcut(e)) {
        e.preventDefault();
        e.stopPropagation();
      }
    }
    window.addEventListener('keydown', blockKeys, true);
    window.addEventListener('keyup', blockKeys, true);
    return () => {
      window.removeEventListener('keydown', blockKeys, true);
      window.removeEventListener('keyup', blockKeys, true);
    };
  }, []);

  // 3b. The player's keys (Space/K, arrows, J/L, Home/End), after the protection above has had its say.
  useEffect(() => {
    const d = dialogRef.current;
    if (!d) return;
    function onKey(e: KeyboardEvent) {
      if (e.defaultPrevented) return;
      // Inside the captions menu the arrows, Home, End and Escape are the menu's.
      if ((e.target as Element | null)?.closest?.('[role=menu]')) return;
      const el = videoRef.current;
      const action = playerKeyAction(e, keyTargetOf(e.target));
      if (!el || !action) return;
      e.preventDefault();
      if (action.kind === 'toggle') {
        if (el.paused) el.play().catch(() => {});
        else el.pause();
        return;
      }
      const end = Number.isFinite(el.duration) ? el.duration : durationRef.current;
      const to = action.kind === 'seekBy' ? el.currentTime + action.seconds : action.where === 'start' ? 0 : end;
      el.currentTime = Math.min(Math.max(0, to), end || 0);
      setCurrent(el.currentTime);
    }
    d.addEventListener('keydown', onKey);
    return () => d.removeEventListener('keydown', onKey);
  }, []);

  // 4. The watermark moves every few seconds so it cannot be cropped away.
  useEffect(() => {
    const t = setInterval(() => setMark(randomWatermarkPosition()), WATERMARK_MOVE_MS);
    return () => clearInterval(t);
  }, []);

  // 5. The play-time counter: one second per second of playing.
  useEffect(() => {
    if (!playing) return;
    const t = setInterval(() => {
      watchedRef.current += 1;
      setWatched(watchedRef.current);
    }, 1000);
    return () => clearInterval(t);
  }, [playing]);

  useEffect(() => {
    const onFs = () => setFullscreen(document.fullscreenElement === frameRef.current);
    document.addEventListener('fullscreenchange', onFs);
    return () => document.removeEventListener('fullscreenchange', onFs);
  }, []);

  const sendView = useCallback(() => {
    if (sentRef.current || watchedRef.current <= MIN_VIEW_SECONDS) return;
    sentRef.current = true;
    api
      .recordView(video.id, watchedRef.current)
      .then(() => qc.invalidateQueries({ queryKey: ['video', video.id] }))
      .catch(() => {});
  }, [video.id, qc]);

  // Leaving the page with the overlay open counts too.
  useEffect(() => sendView, [sendView]);

  const close = useCallback(() => {
    videoRef.current?.pause();
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    sendView();
    dialogRef.current?.close();
    onClose();
  }, [onClose, sendView]);

  const attachVideo = useCallback((el: HTMLVideoElement | null) => {
    videoRef.current = el;
    if (el) {
      // Not every React version knows these as properties; set them on the element.
      (el as HTMLVideoElement & { disableRemotePlayback: boolean }).disableRemotePlayback = true;
      el.setAttribute('disableremoteplayback', '');
      el.disablePictureInPicture = true;
      el.setAttribute('controlslist', 'nodownload noremoteplayback noplaybackrate');
    }
  }, []);

  function togglePlay() {
    const el = videoRef.current;
    if (!el) return;
    if (el.paused) el.play().catch(() => {});
    else el.pause();
  }

  function toggleFullscreen() {
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    else frameRef.current?.requestFullscreen?.().catch(() => {});
  }

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
          <div className="player-message" role="alert" data-problem={problem ?? state.message}>
            <h3 ref={alertRef} tabIndex={-1}>
              {state.failure === 'preparing' ? NOT_READY.heading : PLAYBACK_FAILED.heading}
            </h3>
            <p>{state.failure === 'preparing' ? NOT_READY.message : PLAYBACK_FAILED.message}</p>
            <div className="player-message-actions">
              <button type="button" className="btn btn-primary" onClick={() => setAttempt((n) => n + 1)}>
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
            <div ref={frameRef} className={`player-frame${fullscreen ? ' is-fullscreen' : ''}`}>
              {/* biome-ignore lint/a11y/useMediaCaption: the caption tracks are the video's own (none until an admin adds one) */}
              <video
                ref={attachVideo}
                data-testid="secure-video"
                data-engine={engine ?? undefined}
                data-level={levelHeight ?? undefined}
                data-problem={problem ?? undefined}
                playsInline
                preload="metadata"
                controlsList="nodownload"
                disablePictureInPicture
                onClick={togglePlay}
                onPlay={() => setPlaying(true)}
                onPause={() => setPlaying(false)}
                onEnded={() => setPlaying(false)}
                onTimeUpdate={(e) => setCurrent(e.currentTarget.currentTime)}
                onLoadedMetadata={(e) => Number.isFinite(e.currentTarget.duration) && setDuration(e.currentTarget.duration)}
                onVolumeChange={(e) => setVolume(e.currentTarget.volume)}
              >
                {tracks.map((t) => (
                  <track key={t.language} kind="captions" srcLang={t.language} label={t.label} src={t.url} />
                ))}
              </video>
              <div className="watermark" data-testid="watermark" aria-hidden="true" style={{ top: `${mark.top}%`, left: `${mark.left}%` }}>
                {state.stream.watermarkText}
              </div>
              <div className="player-controls">
                <button
                  type="button"
                  className="ctrl"
                  onClick={togglePlay}
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
                    onPointerMove={(e) => {
                      const box = e.currentTarget.getBoundingClientRect();
                      const fraction = Math.min(1, Math.max(0, (e.clientX - box.left) / (box.width || 1)));
                      setHover({ time: fraction * (duration || 0), fraction });
                    }}
                    onPointerLeave={() => setHover(null)}
                    onChange={(e) => {
                      const t = Number(e.target.value);
                      if (videoRef.current) videoRef.current.currentTime = t;
                      setCurrent(t);
                      // Dragging (or the keyboard) shows the frame it lands on too.
                      if (duration) setHover({ time: t, fraction: t / duration });
                    }}
                    onBlur={() => setHover(null)}
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
                    onChange={(e) => {
                      const v = Number(e.target.value);
                      if (videoRef.current) videoRef.current.volume = v;
                      setVolume(v);
                    }}
                  />
                </label>
                {qualities.length > 0 && (
                  <label className="quality">
                    <span className="visually-hidden">Quality</span>
                    <select
                      className="quality-select"
                      aria-label="Quality"
                      value={quality}
                      onChange={(e) => {
                        const index = Number(e.target.value);
                        setQuality(index);
                        sourceRef.current?.setQuality(index);
                      }}
                    >
                      <option value={-1}>{quality === -1 && levelHeight ? `Auto (${levelHeight}p)` : 'Auto'}</option>
                      {qualities.map((q) => (
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
                      ref={captionButtonRef}
                      type="button"
                      className={`ctrl cc${caption ? ' is-on' : ''}`}
                      aria-label="Captions"
                      aria-haspopup="menu"
                      aria-expanded={captionMenu}
                      aria-controls="captions-menu"
                      data-caption={caption ?? 'off'}
                      onClick={() => setCaptionMenu((open) => !open)}
                    >
                      CC
                    </button>
                    {captionMenu && (
                      // biome-ignore lint/a11y/useSemanticElements: an ARIA menu of radio items (no native element is one)
                      <div
                        id="captions-menu"
                        ref={captionMenuRef}
                        className="captions-menu"
                        role="menu"
                        aria-label="Captions"
                        tabIndex={-1}
                        onKeyDown={captionMenuKeys}
                      >
                        {[{ language: null as string | null, label: 'Off' }, ...tracks].map((t) => (
                          <button
                            key={t.language ?? 'off'}
                            type="button"
                            role="menuitemradio"
                            aria-checked={caption === t.language}
                            lang={t.language ?? undefined}
                            tabIndex={-1}
                            onClick={() => pickCaption(t.language)}
                          >
                            {t.label}
                          </button>
                        ))}
                      </div>
                    )}
                  </div>
                )}
                <button
                  type="button"
                  className="ctrl"
                  onClick={toggleFullscreen}
                  aria-label={fullscreen ? 'Exit fullscreen' : 'Fullscreen'}
                >
                  <svg aria-hidden="true" width="20" height="20" viewBox="0 0 24 24" fill="currentColor">
                    {fullscreen ? (
                      <path d="M5 16h3v3h2v-5H5v2zm3-8H5v2h5V5H8v3zm6 11h2v-3h3v-2h-5v5zm2-11V5h-2v5h5V8h-3z" />
                    ) : (
                      <path d="M7 14H5v5h5v-2H7v-3zm-2-4h2V7h3V5H5v5zm12 7h-3v2h5v-5h-2v3zM14 5v2h3v3h2V5h-5z" />
                    )}
                  </svg>
                </button>
              </div>
            </div>
            <div className="player-info">
              <span>Duration: {formatDuration(video.duration ?? duration)}</span>
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
