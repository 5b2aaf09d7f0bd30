/**
 * Watch time: the seconds played are reported to POST /api/videos/{id}/watch-time every
 * REPORT_EVERY_SECONDS of playback, when playback pauses, when the page is hidden or left, and when
 * the player closes. The server credits a report at most the time since the previous one (and at
 * most 60 s), so a report never carries more than that; the request is kept alive so one sent as
 * the page goes away still arrives (it carries the bearer token, which a beacon could not).
 */
import { useCallback, useEffect, useRef } from 'react';
import { api } from '../app/api';

export const REPORT_EVERY_SECONDS = 30;
const MAX_REPORT_SECONDS = 60;

export function useWatchTime(videoId: string, playing: boolean) {
  const pendingRef = useRef(0);

  const report = useCallback(() => {
    const seconds = Math.min(pendingRef.current, MAX_REPORT_SECONDS);
    if (seconds <= 0) return;
    pendingRef.current -= seconds;
    // A lost report loses its seconds: watch time is a figure for the creator, never a member's error.
    api.reportWatchTime(videoId, seconds).catch(() => {});
  }, [videoId]);

  useEffect(() => {
    if (!playing) {
      report();
      return;
    }
    const t = setInterval(() => {
      pendingRef.current += 1;
      if (pendingRef.current >= REPORT_EVERY_SECONDS) report();
    }, 1000);
    return () => clearInterval(t);
  }, [playing, report]);

  useEffect(() => {
    const onHide = () => {
      if (document.visibilityState === 'hidden') report();
    };
    document.addEventListener('visibilitychange', onHide);
    window.addEventListener('pagehide', report);
    return () => {
      document.removeEventListener('visibilitychange', onHide);
      window.removeEventListener('pagehide', report);
      report();
    };
  }, [report]);
}
