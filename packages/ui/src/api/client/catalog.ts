/** Catalog and streaming calls: the video list, one video, its stream, views and watch time, the geo check and the public site config. */
import type { GeoCheck, SiteAnswer, SiteInfo, StreamInfo, Video, VideoPage, VideoQuery, ViewAnswer, WatchTimeAnswer } from '../types';
import type { Calls } from './session';

export function catalogCalls({ get, post }: Calls) {
  return {
    listVideos: (query: VideoQuery = {}) => get<VideoPage>('/videos', { query: { ...query } }),
    getVideo: (id: string) => get<Video>(`/videos/${encodeURIComponent(id)}`, { fallbackError: 'Failed to load video' }),
    getStream: (id: string) =>
      get<StreamInfo>(`/videos/${encodeURIComponent(id)}/stream`, { redirectOn403: false, fallbackError: 'Failed to load video stream' }),
    recordView: (id: string, duration: number) => post<ViewAnswer>(`/videos/${encodeURIComponent(id)}/view`, { duration }),
    /** Played seconds since the last report (kept alive so a report sent as the page goes still arrives). */
    reportWatchTime: (id: string, seconds: number) =>
      post<WatchTimeAnswer>(
        `/videos/${encodeURIComponent(id)}/watch-time`,
        { seconds },
        { keepalive: true, redirectOn401: false, redirectOn403: false },
      ),
    geoCheck: () => get<GeoCheck>('/geo/check', { fallbackError: 'Failed to check geolocation' }),
    site: async (): Promise<SiteInfo> => {
      const { explorerTxUrl, adminEmail, ...d } = await get<SiteAnswer>('/site');
      return { ...d, ...(adminEmail ? { adminEmail } : {}), bitcoin: { explorerTxUrl } };
    },
  };
}
