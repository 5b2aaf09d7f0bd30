/**
 * The console's live relays, held by the main process: the 1:1 chat's feed and a live show's chat
 * room (issue 43), one ticketed-socket design (`createSocketFeed`) serving both.
 *
 * The chat's live feed for the desktop console, held by the main process (the renderer's CSP
 * allows no WebSocket, and the renderer holds no token). Plain Node, no Electron: it asks the API
 * for a single-use ticket with the admin's session (`POST /api/chat/ticket` through
 * `session.request`, which refreshes the access token), opens `GET /api/chat/socket?ticket=…`
 * with the global WebSocket (Node 22+ and Electron's main process have it) naming the console's
 * origin (`Origin: app://renderer`: the server refuses a handshake that names none), and hands every
 * pushed message to its listeners (IPC to the renderer, the dev bridge's event stream).
 *
 * - A dropped socket (network, server restart) is opened again after a back-off (0.5 s doubling to
 *   30 s), with `after=<last message id>` so the server sends what was missed first; a message seen
 *   twice (a push racing the backlog) is handed on once.
 * - A 4401 close (the session ended: sign-out elsewhere, revoked, no longer an admin) or a ticket
 *   refused with 401/403 ends the feed with a clear state instead of retrying; `stop()` (sign-out
 *   here) ends it too. `start()` again resumes after the last message seen.
 * - A new MEMBER message while the console window is not focused becomes a desktop notification
 *   through the `Notifier` port (Electron's `Notification` in main.ts, a recorder in tests); the
 *   title starts with "VIP" for an annual member. The team's own replies never notify.
 */
import type { ChatConversation, ShowChatPush } from '@members/ui/api';
import { chatSocketMessageSchema, displayText, showChatPushSchema } from '@members/ui/api/schemas';
import { APP_ORIGIN } from '../shared/channels.js';
import type { ApiAnswer, ChatLiveState, ChatLiveStatus, LiveChatMessage, ShowChatRelayState } from '../shared/ipc.js';

export type { ChatLiveState, LiveChatMessage, ShowChatRelayState } from '../shared/ipc.js';

/** What the feed needs of the admin's session (main/session.ts): API calls with its token, the server's URL. */
export interface ChatSessionPort {
  request(method: string, path: string, body?: unknown): Promise<ApiAnswer>;
  serverUrl(): string;
}

export interface ChatNotification {
  title: string;
  body: string;
  /** The member whose conversation it is (a click opens it). */
  userId: string;
}

/** Shows a desktop notification (Electron's `Notification`; a recorder in tests). */
export interface Notifier {
  notify(n: ChatNotification): void;
}

export interface ChatLiveOptions {
  session: ChatSessionPort;
  notifier?: Notifier;
  /** Whether the console window has the focus (no notification then). */
  isFocused?: () => boolean;
  /** The WebSocket class (default: the global one, Node's, which takes headers). */
  WebSocket?: NodeWebSocket;
  /** First reconnect delay and its ceiling, in ms (default 500 and 30 000). */
  backoff?: { firstMs?: number; maxMs?: number };
}

export interface ChatLive {
  /** Starts following (no-op while running); resumes after the last message seen. */
  start(): void;
  /** Stops following (sign-out); the state becomes `stopped`. */
  stop(): void;
  state(): ChatLiveState;
  onMessage(listener: (m: LiveChatMessage) => void): () => void;
  onState(listener: (s: ChatLiveState) => void): () => void;
}

export const SESSION_ENDED_CLOSE = 4401;
export const CHAT_SESSION_ENDED = 'Your session has ended: live chat updates stopped. Sign in again to follow the chat.';
const NOTIFICATION_BODY_MAX = 180;
const SEEN_MAX = 2000;

/**
 * The notification for a member's message: "VIP · Name" first for an annual member, the text as the
 * body. Both are cleaned before they reach the OS (the API refuses such text now, but names and
 * messages stored before may hold it): no control characters or escape sequences, no direction
 * overrides or isolates, no zero-width spaces (`displayText`). A name that itself begins with "VIP"
 * is quoted, so a monthly member cannot pass for an annual one.
 */
export function chatNotification(
  m: LiveChatMessage,
  conversation: Pick<ChatConversation, 'displayName' | 'vip'> | undefined,
): ChatNotification {
  const cleaned = displayText(conversation?.displayName ?? '', { multiLine: false });
  const name = !cleaned ? 'A member' : /^vip\b/i.test(cleaned) ? `“${cleaned}”` : cleaned;
  const clean = displayText(m.text, { multiLine: true });
  const text = clean.length > NOTIFICATION_BODY_MAX ? `${clean.slice(0, NOTIFICATION_BODY_MAX - 1)}…` : clean;
  return { title: conversation?.vip ? `VIP · ${name}` : name, body: text, userId: m.userId };
}

/**
 * Node's (undici's) WebSocket, as in Electron's main process: its second argument may carry request
 * headers, which a browser's cannot (the DOM's type knows only subprotocols).
 */
export type NodeWebSocket = new (url: string, init: { headers: Record<string, string> }) => WebSocket;

/** What one ticketed socket of the API needs besides the session: where it is, what its frames mean. */
interface SocketFeedOptions<P> {
  session: ChatSessionPort;
  WebSocket?: NodeWebSocket;
  backoff?: { firstMs?: number; maxMs?: number };
  /** The socket's path on the server (`/api/chat/socket`, a show's room). */
  socketPath: string;
  /** A frame read as a push, or null when it is not one. */
  parse(data: unknown): P | null;
  /** The id a push is told apart by and resumed after (`after=`), or null for one that carries none (a deletion). */
  idOf(push: P): string | null;
  /** Close codes that end the feed for good, with the words its state then carries (4401 is always one). */
  endings?: Record<number, string>;
}

/** One ticketed socket followed with back-off and resumed after the last push seen: the relay both rooms use. */
interface SocketFeed<P> {
  start(): void;
  stop(): void;
  state(): ChatLiveState;
  onPush(listener: (push: P) => void): () => void;
  onState(listener: (s: ChatLiveState) => void): () => void;
}

function createSocketFeed<P>(opts: SocketFeedOptions<P>): SocketFeed<P> {
  const WS = opts.WebSocket ?? (globalThis.WebSocket as unknown as NodeWebSocket);
  const firstMs = opts.backoff?.firstMs ?? 500;
  const maxMs = opts.backoff?.maxMs ?? 30_000;
  const endings: Record<number, string> = { [SESSION_ENDED_CLOSE]: CHAT_SESSION_ENDED, ...opts.endings };
  const pushListeners = new Set<(push: P) => void>();
  const stateListeners = new Set<(s: ChatLiveState) => void>();
  const seen = new Set<string>();
  let current: ChatLiveState = { status: 'stopped', lastMessageId: null };
  /** Bumped by start/stop: callbacks of an older run do nothing. */
  let run = 0;
  let socket: WebSocket | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;

  function setState(next: Partial<ChatLiveState> & { status: ChatLiveStatus }): void {
    current = { lastMessageId: current.lastMessageId, status: next.status, ...(next.error ? { error: next.error } : {}) };
    for (const l of stateListeners) l(current);
  }

  function end(error: string): void {
    run++;
    clearTimeout(timer);
    closeSocket();
    setState({ status: 'ended', error });
  }

  function closeSocket(): void {
    const s = socket;
    socket = undefined;
    if (s && s.readyState < 2) s.close(1000, 'client stopped');
  }

  function retry(myRun: number, error: string): void {
    if (myRun !== run) return;
    const delay = Math.min(maxMs, firstMs * 2 ** failures) * (1 + Math.random() * 0.2);
    failures++;
    setState({ status: 'reconnecting', error });
    clearTimeout(timer);
    timer = setTimeout(() => follow(myRun), delay);
    // A pending reconnect never keeps the process alive on its own (the bridge, tests).
    timer.unref?.();
  }

  function receive(data: unknown): void {
    const push = opts.parse(data);
    if (!push) return;
    const id = opts.idOf(push);
    if (id) {
      if (seen.has(id)) return;
      seen.add(id);
      if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value as string);
      current = { ...current, lastMessageId: id };
    }
    for (const l of pushListeners) l(push);
  }

  function follow(myRun: number): void {
    connect(myRun).catch((err: Error) => retry(myRun, err.message));
  }

  async function connect(myRun: number): Promise<void> {
    if (myRun !== run) return;
    const ticket = await opts.session.request('POST', '/chat/ticket');
    if (myRun !== run) return;
    if (ticket.status === 401 || ticket.status === 403) return end(CHAT_SESSION_ENDED);
    const value = (ticket.body.data as { ticket?: string } | undefined)?.ticket;
    if (ticket.status !== 200 || !value) return retry(myRun, ticket.body.error || `The server answered ${ticket.status}`);
    const url = new URL(opts.socketPath, opts.session.serverUrl().replace(/^http/, 'ws'));
    url.searchParams.set('ticket', value);
    if (current.lastMessageId) url.searchParams.set('after', current.lastMessageId);
    let ws: WebSocket;
    try {
      // The console's documented form: its main process names the console's origin, as its renderer's pages would.
      ws = new WS(url.href, { headers: { origin: APP_ORIGIN } });
    } catch (err) {
      return retry(myRun, (err as Error).message);
    }
    socket = ws;
    ws.addEventListener('open', () => {
      if (myRun !== run || socket !== ws) return;
      failures = 0;
      setState({ status: 'live' });
    });
    ws.addEventListener('message', (e) => {
      if (myRun === run && socket === ws) receive(e.data);
    });
    ws.addEventListener('close', (e) => {
      if (myRun !== run || socket !== ws) return;
      socket = undefined;
      const ending = endings[e.code];
      if (ending) return end(ending);
      retry(myRun, 'The connection to the server was lost; reconnecting…');
    });
    // An error is followed by a close, which schedules the retry.
    ws.addEventListener('error', () => {});
  }

  return {
    start() {
      if (current.status === 'connecting' || current.status === 'live' || current.status === 'reconnecting') return;
      const myRun = ++run;
      failures = 0;
      setState({ status: 'connecting' });
      follow(myRun);
    },
    stop() {
      run++;
      clearTimeout(timer);
      closeSocket();
      setState({ status: 'stopped' });
    },
    state: () => current,
    onPush(listener) {
      pushListeners.add(listener);
      return () => pushListeners.delete(listener);
    },
    onState(listener) {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
  };
}

export function createChatLive(opts: ChatLiveOptions): ChatLive {
  const feed = createSocketFeed<LiveChatMessage>({
    session: opts.session,
    WebSocket: opts.WebSocket,
    backoff: opts.backoff,
    socketPath: '/api/chat/socket',
    parse(data) {
      try {
        const parsed = chatSocketMessageSchema.safeParse(JSON.parse(String(data)));
        return parsed.success ? parsed.data.message : null;
      } catch {
        return null;
      }
    },
    idOf: (m) => m.id,
  });
  let notifications = Promise.resolve();

  async function notify(m: LiveChatMessage): Promise<void> {
    if (!opts.notifier || m.from !== 'member' || opts.isFocused?.()) return;
    let conversation: ChatConversation | undefined;
    try {
      const answer = await opts.session.request('GET', '/admin/chat/conversations');
      const list = (answer.body.data as { conversations?: ChatConversation[] } | undefined)?.conversations;
      conversation = list?.find((c) => c.userId === m.userId);
    } catch {
      // the notification still goes out, without the name
    }
    opts.notifier.notify(chatNotification(m, conversation));
  }
  // One after the other, so notifications come in the messages' order.
  feed.onPush((m) => {
    notifications = notifications.then(() => notify(m)).catch(() => {});
  });

  return { start: feed.start, stop: feed.stop, state: feed.state, onMessage: feed.onPush, onState: feed.onState };
}

export const SHOW_CHAT_ACCESS_ENDED = 'This show’s chat room is no longer open to this account: live updates stopped.';
/** The room's close code when the access decision now refuses its holder (the API's showChat.routes.ts). */
const SHOW_CHAT_ACCESS_ENDED_CLOSE = 4403;

/** A show's room as the console follows it: which show, and its feed's state. */
export type ShowChatLiveState = ShowChatRelayState;

export interface ShowChatLiveOptions {
  session: ChatSessionPort;
  WebSocket?: NodeWebSocket;
  backoff?: { firstMs?: number; maxMs?: number };
}

/**
 * The show chat room's relay: one room at a time (the one the console's screen shows), its socket
 * `GET /api/live/shows/{id}/chat/socket` opened with the same ticket, origin, back-off and resume as
 * the 1:1 chat's; each push (a message, a deletion) handed to the listeners with its show's id.
 */
export interface ShowChatLive {
  /** Follows this show's room (the one followed before is left); following the same one again changes nothing. */
  follow(showId: string): void;
  /** Leaves the room (the screen closed it, sign-out). */
  stop(): void;
  state(): ShowChatLiveState;
  onPush(listener: (push: ShowChatPush) => void): () => void;
  onState(listener: (s: ShowChatLiveState) => void): () => void;
}

export function createShowChatLive(opts: ShowChatLiveOptions): ShowChatLive {
  const pushListeners = new Set<(push: ShowChatPush) => void>();
  const stateListeners = new Set<(s: ShowChatLiveState) => void>();
  let showId: string | null = null;
  let feed: SocketFeed<ShowChatPush> | null = null;
  const state = (): ShowChatLiveState => ({ ...(feed?.state() ?? { status: 'stopped', lastMessageId: null }), showId });
  const announce = () => {
    const s = state();
    for (const l of stateListeners) l(s);
  };

  function leave(): void {
    const old = feed;
    feed = null;
    old?.stop();
  }

  return {
    follow(id) {
      if (feed && showId === id && feed.state().status !== 'stopped' && feed.state().status !== 'ended') return;
      leave();
      showId = id;
      const room = createSocketFeed<ShowChatPush>({
        session: opts.session,
        WebSocket: opts.WebSocket,
        backoff: opts.backoff,
        socketPath: `/api/live/shows/${encodeURIComponent(id)}/chat/socket`,
        parse: (data) => {
          let push: ShowChatPush;
          try {
            const parsed = showChatPushSchema.safeParse(JSON.parse(String(data)));
            if (!parsed.success) return null;
            push = parsed.data;
          } catch {
            return null;
          }
          // Only this room's: the server sends no other, and a stray frame changes nothing.
          return (push.type === 'message' ? push.message.showId : push.showId) === id ? push : null;
        },
        idOf: (push) => (push.type === 'message' ? push.message.id : null),
        endings: { [SHOW_CHAT_ACCESS_ENDED_CLOSE]: SHOW_CHAT_ACCESS_ENDED },
      });
      feed = room;
      room.onPush((push) => {
        if (feed === room) for (const l of pushListeners) l(push);
      });
      room.onState(() => {
        if (feed === room) announce();
      });
      room.start();
    },
    stop() {
      leave();
      showId = null;
      announce();
    },
    state,
    onPush(listener) {
      pushListeners.add(listener);
      return () => pushListeners.delete(listener);
    },
    onState(listener) {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
  };
}
