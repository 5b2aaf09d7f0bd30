/**
 * The player's controls state: playing, position, duration, volume and fullscreen, read from the
 * `<video>` element's events, and the actions the control bar calls. The element is attached with
 * download, picture-in-picture and remote playback turned off (spec §9).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { togglePlayback } from './playRequest';

export function usePlayerControls(knownDuration: number) {
  const videoRef = useRef<HTMLVideoElement | null>(null);
  const frameRef = useRef<HTMLDivElement>(null);
  const [playing, setPlaying] = useState(false);
  const [current, setCurrent] = useState(0);
  const [duration, setDuration] = useState(knownDuration);
  const durationRef = useRef(duration);
  durationRef.current = duration;
  const [volume, setVolumeState] = useState(1);
  const [fullscreen, setFullscreen] = useState(false);

  useEffect(() => {
    const onFs = () => setFullscreen(document.fullscreenElement === frameRef.current);
    document.addEventListener('fullscreenchange', onFs);
    return () => document.removeEventListener('fullscreenchange', onFs);
  }, []);

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

  /** Play or pause, as the member's intent (playRequest.ts: a Play a new load aborts is played again). */
  function togglePlay() {
    if (videoRef.current) togglePlayback(videoRef.current);
  }

  function toggleFullscreen() {
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    else frameRef.current?.requestFullscreen?.().catch(() => {});
  }

  function seek(time: number) {
    if (videoRef.current) videoRef.current.currentTime = time;
    setCurrent(time);
  }

  function setVolume(v: number) {
    if (videoRef.current) videoRef.current.volume = v;
    setVolumeState(v);
  }

  /** The `<video>` element's event handlers that keep the state above. */
  const mediaEvents = {
    onClick: togglePlay,
    onPlay: () => setPlaying(true),
    onPause: () => setPlaying(false),
    onEnded: () => setPlaying(false),
    onTimeUpdate: (e: { currentTarget: HTMLVideoElement }) => setCurrent(e.currentTarget.currentTime),
    onLoadedMetadata: (e: { currentTarget: HTMLVideoElement }) =>
      Number.isFinite(e.currentTarget.duration) && setDuration(e.currentTarget.duration),
    onVolumeChange: (e: { currentTarget: HTMLVideoElement }) => setVolumeState(e.currentTarget.volume),
  };

  return {
    videoRef,
    frameRef,
    attachVideo,
    mediaEvents,
    playing,
    current,
    setCurrent,
    duration,
    durationRef,
    volume,
    setVolume,
    fullscreen,
    togglePlay,
    toggleFullscreen,
    seek,
  };
}

export type PlayerControlsState = ReturnType<typeof usePlayerControls>;
