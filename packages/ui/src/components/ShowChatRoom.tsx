/**
 * A live show's chat room beside the player (issue 43, docs/live.md "The show's chat room"): the
 * messages with their authors' display names, a box to write for whoever may watch, live over the
 * room's ticketed WebSocket (reconnecting after a pause with `after=` the last message seen, as the
 * 1:1 chat's socket does, and reading the room again each time a socket opens, for what came before
 * it). The API's refusals (403 muted or not allowed, 409 closed, 429 too fast) are shown as words
 * above the box; a muted viewer is told so before they type (cleared when staff unmute them). Staff
 * with `live.chat` get "Delete" and "Mute" on each message ("Unmute" for a member muted in the room). Message text is
 * React text, never HTML, isolated (dir="auto").
 */
import { type FormEvent, useCallback, useEffect, useId, useRef, useState } from 'react';
import type { ApiClient } from '../api/client';
import { SHOW_CHAT_MAX_LENGTH } from '../api/schemas/showChat';
import { displayText } from '../api/schemas/text';
import type { ShowChatMessage, ShowChatPush } from '../api/types';
import { Button } from './Button';
import { chatTime } from './ChatThread';
import { Alert, EmptyState } from './Feedback';
import {
  emptyRoom,
  parseShowChatPush,
  roomWithMessage,
  roomWithout,
  roomWithPage,
  roomWithPush,
  SHOW_CHAT_MUTED_NOTICE,
  type ShowChatRoomState,
  showChatRefusal,
} from './showChatRoomState';

const RECONNECT_MS = 2000;

/**
 * Where a host that may not open a socket of its own (the desktop console: its renderer's CSP allows
 * none) gets the room's pushes: it follows `showId` and calls `push` for each, `open` each time its
 * socket opens (the room is read again then), `closed` when it drops; returns the unsubscribe.
 */
export type ShowChatLiveSource = (showId: string, on: { push(p: ShowChatPush): void; open(): void; closed(): void }) => () => void;
/** The room's close codes (docs/live.md): the access decision now refuses; the session ended. */
const ACCESS_ENDED_CLOSE = 4403;
const SESSION_ENDED_CLOSE = 4401;

/** Follows the room's socket while `enabled`: every push updates the room; `onOpen` (the page reads the room again) runs each time one opens, and when access or the session ended. */
function useShowChatSocket(
  api: ApiClient,
  showId: string,
  onPush: (push: ShowChatPush) => void,
  lastSeen: () => string | null,
  onOpen: () => void,
  enabled: boolean,
  live: ShowChatLiveSource | undefined,
): boolean {
  const [connected, setConnected] = useState(false);
  const handlers = useRef({ onPush, lastSeen, onOpen });
  handlers.current = { onPush, lastSeen, onOpen };

  useEffect(() => {
    if (!enabled || !live) return;
    const stop = live(showId, {
      push: (push) => handlers.current.onPush(push),
      open: () => {
        setConnected(true);
        handlers.current.onOpen();
      },
      closed: () => setConnected(false),
    });
    return () => {
      setConnected(false);
      stop();
    };
  }, [live, showId, enabled]);

  useEffect(() => {
    if (!enabled || live || typeof WebSocket === 'undefined') return;
    let stopped = false;
    let socket: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const again = () => {
      if (!stopped) timer = setTimeout(() => void open(), RECONNECT_MS);
    };
    const open = async () => {
      if (stopped) return;
      try {
        const url = await api.showChatSocketUrl(showId, handlers.current.lastSeen());
        if (stopped) return;
        socket = new WebSocket(url);
        socket.onopen = () => {
          setConnected(true);
          handlers.current.onOpen();
        };
        socket.onmessage = (e) => {
          const push = parseShowChatPush(e.data);
          if (push) handlers.current.onPush(push);
        };
        socket.onclose = (e) => {
          setConnected(false);
          // Access ended (4403) or the session did (4401): read the room again first, whose refusal
          // closes the room on the page (no more sockets) instead of asking for tickets in a loop.
          if (e.code === ACCESS_ENDED_CLOSE || e.code === SESSION_ENDED_CLOSE) handlers.current.onOpen();
          again();
        };
      } catch {
        again();
      }
    };
    void open();
    return () => {
      stopped = true;
      clearTimeout(timer);
      socket?.close();
    };
  }, [api, showId, enabled, live]);
  return connected;
}

export interface ShowChatRoomProps {
  api: ApiClient;
  showId: string;
  /** The show has ended: the room is read only (the API would answer 409). */
  ended?: boolean;
  /** Staff with `live.chat`: delete a message, mute its author for this show. */
  moderate?: boolean;
  /** The room's pushes from the host instead of a WebSocket of the room's own (the desktop console's main process). */
  live?: ShowChatLiveSource;
}

export function ShowChatRoom({ api, showId, ended = false, moderate = false, live }: ShowChatRoomProps) {
  const [room, setRoom] = useState<ShowChatRoomState>(emptyRoom);
  const roomRef = useRef(room);
  roomRef.current = room;
  const [loadError, setLoadError] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  /** Staff muted this viewer in the room (the read says so; their socket is told of a mute and an unmute). */
  const [mutedMe, setMutedMe] = useState(false);
  /** The members muted in the room (staff's read lists them; kept up to date by this screen's mutes): "Unmute" beside their messages. */
  const [mutedHere, setMutedHere] = useState<ReadonlySet<string>>(new Set());
  const boxId = useId();
  const titleId = useId();
  const end = useRef<HTMLDivElement>(null);

  const update = useCallback((f: (r: ShowChatRoomState) => ShowChatRoomState) => setRoom((r) => f(r)), []);
  const read = useCallback(async () => {
    try {
      const page = await api.showChatRoom(showId);
      update((r) => roomWithPage(r, page.messages));
      setMutedMe(page.muted);
      if (page.mutedMembers) setMutedHere(new Set(page.mutedMembers));
      setLoadError(null);
    } catch (err) {
      setLoadError(err instanceof Error ? err.message : 'Could not load the chat');
    } finally {
      setLoaded(true);
    }
  }, [api, showId, update]);

  useEffect(() => {
    setRoom(emptyRoom);
    setLoaded(false);
    void read();
  }, [read]);

  const onPush = useCallback(
    (push: ShowChatPush) => {
      if (push.type === 'muted' || push.type === 'unmuted') {
        // Only this viewer's own mute reaches their socket.
        if (push.showId === showId) setMutedMe(push.type === 'muted');
        if (push.type === 'unmuted') setRefusal(null);
        return;
      }
      update((room) => roomWithPush(room, push, showId));
    },
    [showId, update],
  );
  const connected = useShowChatSocket(
    api,
    showId,
    onPush,
    () => roomRef.current.messages.at(-1)?.id ?? null,
    () => void read(),
    loaded && !loadError,
    live,
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: scrolls when a message arrives
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'nearest' });
  }, [room.messages.length]);

  async function send(e: FormEvent) {
    e.preventDefault();
    const t = text.trim();
    if (!t || busy) return;
    setBusy(true);
    setRefusal(null);
    try {
      const m = await api.postShowChatMessage(showId, t);
      update((r) => roomWithMessage(r, m));
      setText('');
    } catch (err) {
      setRefusal(showChatRefusal(err));
    } finally {
      setBusy(false);
    }
  }

  async function remove(m: ShowChatMessage) {
    setNotice(null);
    try {
      await api.deleteShowChatMessage(showId, m.id);
      update((r) => roomWithout(r, m.id));
    } catch (err) {
      setNotice(err instanceof Error ? err.message : 'Could not delete the message');
    }
  }

  async function mute(m: ShowChatMessage) {
    setNotice(null);
    try {
      await api.muteShowChatMember(showId, m.authorId);
      setMutedHere((s) => new Set([...s, m.authorId]));
      setNotice(`${displayText(m.author, { multiLine: false })} is muted in this show’s chat.`);
    } catch (err) {
      setNotice(err instanceof Error ? err.message : 'Could not mute the member');
    }
  }

  async function unmute(m: ShowChatMessage) {
    setNotice(null);
    try {
      await api.unmuteShowChatMember(showId, m.authorId);
      setMutedHere((s) => new Set([...s].filter((id) => id !== m.authorId)));
      setNotice(`${displayText(m.author, { multiLine: false })} may write in this show’s chat again.`);
    } catch (err) {
      setNotice(err instanceof Error ? err.message : 'Could not unmute the member');
    }
  }

  return (
    <section className="show-chat" aria-labelledby={titleId} data-testid="show-chat" data-connected={connected}>
      <h2 id={titleId} className="show-chat-title">
        Chat
      </h2>
      {loadError ? (
        <Alert tone="info">{loadError}</Alert>
      ) : (
        <>
          <ol className="chat-messages show-chat-messages" aria-live="polite" aria-label="Chat messages">
            {loaded && room.messages.length === 0 && (
              <li>
                <EmptyState>No messages yet.</EmptyState>
              </li>
            )}
            {room.messages.map((m) => (
              <li key={m.id} className="show-chat-message" data-testid="show-chat-message" data-id={m.id}>
                <span className="chat-name" dir="auto">
                  {m.author}
                </span>{' '}
                <time className="chat-meta" dateTime={m.postedAt}>
                  {chatTime(m.postedAt)}
                </time>
                <p className="chat-text" dir="auto">
                  {m.text}
                </p>
                {moderate && (
                  <span className="show-chat-actions">
                    <Button variant="ghost" size="sm" onClick={() => void remove(m)} aria-label={`Delete the message from ${m.author}`}>
                      Delete
                    </Button>
                    {mutedHere.has(m.authorId) ? (
                      <Button variant="ghost" size="sm" onClick={() => void unmute(m)} aria-label={`Unmute ${m.author} in this show`}>
                        Unmute
                      </Button>
                    ) : (
                      <Button variant="ghost" size="sm" onClick={() => void mute(m)} aria-label={`Mute ${m.author} in this show`}>
                        Mute
                      </Button>
                    )}
                  </span>
                )}
              </li>
            ))}
          </ol>
          <div ref={end} />
          {notice && (
            <Alert tone="info" onDismiss={() => setNotice(null)}>
              {notice}
            </Alert>
          )}
          {refusal && (
            <Alert tone="warning" onDismiss={() => setRefusal(null)}>
              <span data-testid="show-chat-refusal">{refusal}</span>
            </Alert>
          )}
          {mutedMe && !ended && (
            <Alert tone="warning">
              <span data-testid="show-chat-muted">{SHOW_CHAT_MUTED_NOTICE}</span>
            </Alert>
          )}
          {ended ? (
            <p className="muted">The show has ended: its chat is closed.</p>
          ) : (
            <form className="chat-compose" onSubmit={send}>
              <label htmlFor={boxId}>Your message</label>
              <textarea
                id={boxId}
                className="input"
                rows={2}
                maxLength={SHOW_CHAT_MAX_LENGTH}
                placeholder="Say something…"
                value={text}
                disabled={mutedMe}
                onChange={(e) => setText(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && !e.shiftKey) void send(e);
                }}
              />
              <Button type="submit" busy={busy} busyLabel="Sending..." disabled={mutedMe || text.trim().length === 0}>
                Send
              </Button>
            </form>
          )}
        </>
      )}
    </section>
  );
}
