/**
 * Live shows in the desktop console (issue 43): the web /admin/live's shared screen (schedule a
 * show, its stream key shown once, a new key, end) for the roles with `videos` (owner, editor), and
 * a show's chat room for the roles with `live.chat` (owner, moderator, support), who may delete a
 * message and mute a member. The room is the shared ShowChatRoom; its live pushes come from the main
 * process's relay (main/chatLive.ts, over IPC or the dev bridge), since the renderer's CSP allows no
 * socket. Staff without `videos` pick the room from the members' list of shows (`GET /live/shows`).
 */
import {
  Alert,
  Button,
  Card,
  can,
  EmptyState,
  LiveShowsAdmin,
  type ShowChatLiveSource,
  ShowChatRoom,
  Spinner,
  type StaffRole,
} from '@members/ui';
import type { ApiClient } from '@members/ui/api';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type { DesktopApi, ShowChatRelayState } from '../shared/ipc.js';

interface OpenRoom {
  id: string;
  title: string;
  ended: boolean;
}

/** The room's pushes from the main process's relay: it follows the room while the room is on screen. */
function useRelaySource(desktop: DesktopApi, onState: (s: ShowChatRelayState) => void): ShowChatLiveSource {
  return useMemo<ShowChatLiveSource>(
    () => (showId, on) => {
      const offPush = desktop.showChat.onPush(on.push);
      /** A state pushed since the follow: newer than its answer, which may arrive after it (another connection: the dev bridge). */
      let heard = false;
      const seen = (s: ShowChatRelayState) => {
        if (s.showId !== showId) return;
        onState(s);
        if (s.status === 'live') on.open();
        else on.closed();
      };
      const offState = desktop.showChat.onState((s) => {
        if (s.showId === showId) heard = true;
        seen(s);
      });
      desktop.showChat.follow({ showId }).then(
        (s) => {
          if (!heard) seen(s);
        },
        (err: Error) => onState({ status: 'ended', error: err.message, lastMessageId: null, showId }),
      );
      return () => {
        offPush();
        offState();
        void desktop.showChat.stop().catch(() => {});
      };
    },
    [desktop, onState],
  );
}

function Room({ desktop, api, room, onBack }: { desktop: DesktopApi; api: ApiClient; room: OpenRoom; onBack(): void }) {
  const [relay, setRelay] = useState<ShowChatRelayState | null>(null);
  const live = useRelaySource(desktop, setRelay);
  return (
    <div className="desk-live-room">
      <Button variant="ghost" onClick={onBack}>
        ← Back to the shows
      </Button>
      <h2 dir="auto">{room.title}</h2>
      {relay?.status === 'ended' && <Alert tone="error">{relay.error ?? 'Live chat updates stopped.'}</Alert>}
      {relay?.status === 'reconnecting' && <Alert tone="info">{relay.error ?? 'Reconnecting to the chat…'}</Alert>}
      <ShowChatRoom api={api} showId={room.id} ended={room.ended} moderate live={live} />
    </div>
  );
}

/** The shows whose room staff without `videos` may open: the members' list (upcoming, live, ended in the last day). */
function RoomList({ api, onOpen }: { api: ApiClient; onOpen(room: OpenRoom): void }) {
  const shows = useQuery({ queryKey: ['live', 'shows'], queryFn: () => api.liveShows(), refetchInterval: 60_000 });
  return (
    <Card title="Live shows">
      {shows.isLoading ? (
        <Spinner label="Loading shows..." />
      ) : shows.error ? (
        <Alert>{shows.error.message}</Alert>
      ) : (shows.data ?? []).length === 0 ? (
        <EmptyState>No show scheduled yet.</EmptyState>
      ) : (
        <ul className="desk-live-rooms">
          {(shows.data ?? []).map((s) => (
            <li key={s.id}>
              <span dir="auto">{s.title}</span> <span className="muted">({s.status})</span>{' '}
              <Button size="sm" variant="secondary" onClick={() => onOpen({ id: s.id, title: s.title, ended: s.status === 'ended' })}>
                Open chat
              </Button>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

export function LiveShows({ desktop, api, staffRole }: { desktop: DesktopApi; api: ApiClient; staffRole: StaffRole }) {
  const [room, setRoom] = useState<OpenRoom | null>(null);
  const schedules = can(staffRole, 'videos');
  const moderates = can(staffRole, 'live.chat');
  if (room && moderates) return <Room desktop={desktop} api={api} room={room} onBack={() => setRoom(null)} />;
  return (
    <div>
      {schedules && (
        <LiveShowsAdmin
          client={api}
          renderShowLink={
            moderates
              ? (s) => (
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => setRoom({ id: s.id, title: s.title, ended: s.status === 'ended' })}
                    aria-label={`Open the chat of ${s.title}`}
                  >
                    {s.title}
                  </button>
                )
              : undefined
          }
        />
      )}
      {moderates && !schedules && <RoomList api={api} onOpen={setRoom} />}
    </div>
  );
}
