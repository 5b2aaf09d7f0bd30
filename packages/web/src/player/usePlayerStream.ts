/**
 * The player's stream grant: asked for only when the member may watch (spec §4, §5, the same
 * access decision the detail page and the API make), with the failure kinds of failure.ts, "Try
 * again" asking afresh, and the focus moved to a failure so a keyboard or screen-reader user lands
 * on what happened and its actions.
 */
import { accessDecision } from '@members/ui/access';
import type { StreamInfo, Video } from '@members/ui/api';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../app/api';
import { useGeo } from '../app/geo';
import { useViewer } from '../app/viewer';
import { type FailureKind, NOT_READY, nothingToPlay, streamRequestFailure } from './failure';

export type StreamState =
  | { kind: 'loading' }
  | { kind: 'error'; failure: FailureKind; message: string }
  | { kind: 'ready'; stream: StreamInfo };

export function usePlayerStream(video: Video) {
  const viewer = useViewer();
  const geo = useGeo();
  const [state, setState] = useState<StreamState>({ kind: 'loading' });
  // "Try again" after a playback failure asks for the stream afresh.
  const [attempt, setAttempt] = useState(0);
  const alertRef = useRef<HTMLHeadingElement>(null);
  // The same decision the detail page and the API make; its message is the spec's catalogue's. An
  // annual-only video waits for the viewer's plan as for the region check (nothing asked meanwhile).
  const waiting = geo.loading || (viewer.loading && video.exclusiveTo === 'annual');
  const decision = accessDecision({ video, geo: { loading: waiting, blocked: geo.blocked }, user: viewer.user });
  const refusal = decision.allowed ? null : decision.reason;
  const refusalMessage = decision.message;

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

  useEffect(() => {
    if (state.kind === 'error') alertRef.current?.focus();
  }, [state]);

  /** The picture cannot be shown after all (every engine gave up). */
  const fail = useCallback((failure: FailureKind) => setState({ kind: 'error', failure, message: 'Failed to load video' }), []);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);

  return { state, stream: state.kind === 'ready' ? state.stream : null, alertRef, fail, retry };
}
