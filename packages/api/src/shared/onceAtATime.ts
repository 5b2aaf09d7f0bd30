/**
 * `load`, run at most once at a time: calls while it runs share its promise (the gauges of one
 * scrape read one query set), and the next call after it settled runs it again.
 */
export function onceAtATime<T>(load: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  return () => {
    running ??= load().finally(() => {
      running = undefined;
    });
    return running;
  };
}
