/**
 * Follows the chat in real time: asks for a single-use ticket, opens the WebSocket, hands every
 * pushed message to `onMessage`, and when the socket closes (network, server restart) opens a new
 * one after a pause, resuming after the last message it saw (`?after=`), so nothing is missed.
 * Each time a socket opens, `onOpen` runs: the page reads its lists again, for a message that
 * arrived between its first read and the socket's open (the first socket has no `?after=` yet).
 * `useChatFeed` takes its messages from an injected `ChatLiveSource` instead where the page may not
 * open a socket (the desktop console: its main process holds the socket and relays the pushes).
 */
import { useEffect, useRef, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { ChatPush } from '../api/types';

const RECONNECT_MS = 2000;

/** A feed of pushed chat messages kept elsewhere: subscribes `onMessage`, answers the unsubscribe. */
export type ChatLiveSource = (onMessage: (push: ChatPush['message']) => void) => () => void;

export function useChatSocket(
  api: ApiClient,
  onMessage: (push: ChatPush['message']) => void,
  enabled = true,
  onOpen?: () => void,
): { connected: boolean } {
  const [connected, setConnected] = useState(false);
  const handler = useRef(onMessage);
  handler.current = onMessage;
  const opened = useRef(onOpen);
  opened.current = onOpen;

  useEffect(() => {
    if (!enabled || typeof WebSocket === 'undefined') return;
    let stopped = false;
    let socket: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let lastId: string | null = null;

    const open = async () => {
      if (stopped) return;
      try {
        const url = await api.chatSocketUrl(lastId);
        if (stopped) return;
        socket = new WebSocket(url);
        socket.onopen = () => {
          setConnected(true);
          opened.current?.();
        };
        socket.onmessage = (e) => {
          try {
            const push = JSON.parse(String(e.data)) as ChatPush;
            if (push.type !== 'message') return;
            lastId = push.message.id;
            handler.current(push.message);
          } catch {
            // not a push of ours: ignored
          }
        };
        socket.onclose = () => {
          setConnected(false);
          if (!stopped) timer = setTimeout(() => void open(), RECONNECT_MS);
        };
      } catch {
        if (!stopped) timer = setTimeout(() => void open(), RECONNECT_MS);
      }
    };
    void open();
    return () => {
      stopped = true;
      clearTimeout(timer);
      socket?.close();
    };
  }, [api, enabled]);

  return { connected };
}

/** The chat's pushes from `source` when given, otherwise from this page's own WebSocket (`useChatSocket`). */
export function useChatFeed(
  api: ApiClient,
  onMessage: (push: ChatPush['message']) => void,
  source?: ChatLiveSource,
  onOpen?: () => void,
): void {
  const handler = useRef(onMessage);
  handler.current = onMessage;
  useChatSocket(api, (m) => handler.current(m), !source, onOpen);
  useEffect(() => source?.((m) => handler.current(m)), [source]);
}
