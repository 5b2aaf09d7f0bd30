/**
 * Catalog queries: the keys and fetchers of the site config, the geo check, the video lists and one video.
 * A newly released video reaches an open catalog without a reload (issue 40): the lists and the video
 * are asked again when the window regains focus (the app's default is not to), and a list or video
 * counting down to an `availableAt` is asked again when that time comes.
 */
import { queryOptions } from '@tanstack/react-query';
import { msUntilNextRelease } from '../../format/release';
import type { ApiClient } from '../client';
import type { VideoQuery } from '../types';

export const catalogKeys = {
  site: ['site'] as const,
  geo: ['geo'] as const,
  /** Every video list. */
  videos: ['videos'] as const,
  videoList: (query: VideoQuery) => ['videos', query] as const,
  categories: ['videos', 'categories'] as const,
  video: (id: string) => ['video', id] as const,
};

export function catalogQueries(api: ApiClient) {
  return {
    site: () => queryOptions({ queryKey: catalogKeys.site, queryFn: () => api.site() }),
    geo: () => queryOptions({ queryKey: catalogKeys.geo, queryFn: () => api.geoCheck() }),
    videoList: (query: VideoQuery) =>
      queryOptions({
        queryKey: catalogKeys.videoList(query),
        queryFn: () => api.listVideos(query),
        refetchOnWindowFocus: true,
        refetchInterval: (q) => msUntilNextRelease(q.state.data?.videos),
      }),
    /** The categories and models come from the first hundred videos. */
    categories: () => queryOptions({ queryKey: catalogKeys.categories, queryFn: () => api.listVideos({ pageSize: 100 }) }),
    video: (id: string) =>
      queryOptions({
        queryKey: catalogKeys.video(id),
        queryFn: () => api.getVideo(id),
        refetchOnWindowFocus: true,
        refetchInterval: (q) => msUntilNextRelease(q.state.data ? [q.state.data] : []),
      }),
  };
}
