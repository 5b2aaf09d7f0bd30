/**
 * The engine choice of the player: adaptive HLS when the video is transcoded (hls.js, or native HLS
 * on Safari, engineChoice.ts), else, or after a fatal HLS error, the progressive file
 * (adaptiveSource.ts). It reports the engine, the renditions for the quality menu, the rendition
 * playing, and the last stream problem (on the element for whoever diagnoses a stall); when the
 * last engine gives up it tells a refused fetch from a failed decode (failure.ts).
 */
import type { StreamInfo } from '@members/ui/api';
import { type RefObject, useEffect, useRef, useState } from 'react';
import { type AdaptiveSource, attachStream, type Engine, type Quality, type StreamProblem } from './adaptiveSource';
import { type FailureKind, mediaFailure } from './failure';

export function useAdaptiveEngine(
  videoRef: RefObject<HTMLVideoElement | null>,
  stream: StreamInfo | null,
  onFailure: (kind: FailureKind) => void,
) {
  const [engine, setEngine] = useState<Engine | null>(null);
  const [qualities, setQualities] = useState<Quality[]>([]);
  const [quality, setQualityState] = useState(-1);
  const [levelHeight, setLevelHeight] = useState<number | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const sourceRef = useRef<AdaptiveSource | null>(null);
  // Every problem of this attempt, to tell a refused fetch from a failed decode when the last engine gives up.
  const problemsRef = useRef<StreamProblem[]>([]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new stream (not a new callback) attaches afresh
  useEffect(() => {
    const el = videoRef.current;
    if (!stream || !el) return;
    let active = true;
    let source: AdaptiveSource | null = null;
    problemsRef.current = [];
    setProblem(null);
    // Every problem reaches the element as a `streamproblem` event: the engines' own and a rejected
    // Play (playRequest.ts), so the last one shown on the element names whichever came last.
    const onProblem = (e: Event) => {
      if (!active) return;
      const p = (e as CustomEvent<StreamProblem>).detail;
      problemsRef.current.push(p);
      setProblem(
        `${p.engine} ${p.details}${p.status ? ` ${p.status}` : ''}${p.cause ? ` after ${p.cause}` : ''}${p.fatal ? ' (fatal)' : ''}`,
      );
      // Nothing left to fall back to: say so instead of showing a black frame for ever, and say
      // which: refused on the way, or fetched and not playable (failure.ts).
      if (p.fatal && p.engine !== 'hls.js') onFailure(mediaFailure(problemsRef.current));
    };
    el.addEventListener('streamproblem', onProblem);
    attachStream(el, stream, {
      onQualities: (q) => active && setQualities(q),
      onLevel: (h) => active && setLevelHeight(h),
      onFallback: () => {
        if (!active) return;
        setEngine('progressive');
        setQualities([]);
      },
    }).then((s) => {
      if (!active) return s.destroy();
      source = s;
      sourceRef.current = s;
      setEngine(s.engine);
    });
    return () => {
      active = false;
      el.removeEventListener('streamproblem', onProblem);
      source?.destroy();
      sourceRef.current = null;
    };
  }, [stream]);

  /** "Auto" (-1) or one rendition. */
  function setQuality(index: number) {
    setQualityState(index);
    sourceRef.current?.setQuality(index);
  }

  return { engine, qualities, quality, setQuality, levelHeight, problem };
}
