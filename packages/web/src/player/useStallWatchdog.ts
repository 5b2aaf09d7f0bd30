/**
 * The stall watchdog while hls.js plays: WebKit can freeze with its data buffered when Play comes
 * early; a small seek restarts it (stallWatchdog.ts decides when). `attachment` is what was
 * attached (the stream): a new one watches the element afresh.
 */
import { type RefObject, useEffect } from 'react';
import { watchStalls } from './stallWatchdog';

export function useStallWatchdog(videoRef: RefObject<HTMLVideoElement | null>, active: boolean, attachment: unknown): void {
  // biome-ignore lint/correctness/useExhaustiveDependencies: `attachment` names a new element to watch
  useEffect(() => {
    const el = videoRef.current;
    if (!active || !el) return;
    return watchStalls(el);
  }, [videoRef, active, attachment]);
}
