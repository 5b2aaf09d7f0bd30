/** Live show calls (issue 43, docs/live.md): the shows a member sees and a show's live stream. */
import type { LiveShow, LiveStreamInfo } from '../types';
import type { Calls } from './session';

export function liveCalls({ get }: Calls) {
  return {
    liveShows: async (): Promise<LiveShow[]> =>
      (await get<{ shows: LiveShow[] }>('/live/shows', { fallbackError: 'Failed to load live shows' })).shows,
    getLiveStream: (id: string) =>
      get<LiveStreamInfo>(`/live/shows/${encodeURIComponent(id)}/stream`, {
        redirectOn403: false,
        fallbackError: 'Failed to load the live show',
      }),
  };
}
