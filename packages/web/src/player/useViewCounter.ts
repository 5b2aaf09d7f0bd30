/**
 * The play-time counter (one second per second of playing) and the view sent once, on close or
 * when the page is left with the overlay open, after more than MIN_VIEW_SECONDS of watching.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../app/api';
import { catalogKeys } from '../app/queries';
import { MIN_VIEW_SECONDS } from './protection';

export function useViewCounter(videoId: string, playing: boolean) {
  const qc = useQueryClient();
  const watchedRef = useRef(0);
  const sentRef = useRef(false);
  const [watched, setWatched] = useState(0);

  useEffect(() => {
    if (!playing) return;
    const t = setInterval(() => {
      watchedRef.current += 1;
      setWatched(watchedRef.current);
    }, 1000);
    return () => clearInterval(t);
  }, [playing]);

  const sendView = useCallback(() => {
    if (sentRef.current || watchedRef.current <= MIN_VIEW_SECONDS) return;
    sentRef.current = true;
    api
      .recordView(videoId, watchedRef.current)
      .then(() => qc.invalidateQueries({ queryKey: catalogKeys.video(videoId) }))
      .catch(() => {});
  }, [videoId, qc]);

  // Leaving the page with the overlay open counts too.
  useEffect(() => sendView, [sendView]);

  return { watched, sendView };
}
