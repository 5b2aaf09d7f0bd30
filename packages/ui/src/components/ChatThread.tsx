/**
 * One chat conversation and its compose box, shared by the member's chat page and the admin inbox
 * (web and desktop). Message text is rendered as React text (never HTML): markup and links show as
 * the characters they are.
 */

import { type FormEvent, useEffect, useRef, useState } from 'react';
import { CHAT_MAX_LENGTH } from '../api/chatLimits';
import type { ChatMessage } from '../api/types';
import { Button } from './Button';
import { Alert, EmptyState } from './Feedback';

/** When a message was sent, in the reader's locale (date and time). */
export function chatTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleString('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export interface ChatThreadProps {
  messages: ChatMessage[];
  /** Whose view this is: their own messages sit on the right. */
  self: 'member' | 'admin';
  /** Sends a message; a rejection's message is shown above the box. */
  onSend: (text: string) => Promise<unknown>;
  /** Why the compose box is closed (the access decision's words), or null when it is open. */
  cannotWrite?: string | null;
  emptyText?: string;
  label?: string;
}

export function ChatThread({
  messages,
  self,
  onSend,
  cannotWrite = null,
  emptyText = 'No messages yet.',
  label = 'Message',
}: ChatThreadProps) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const end = useRef<HTMLDivElement>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: scrolls when a message arrives
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'nearest' });
  }, [messages.length]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const t = text.trim();
    if (!t || busy) return;
    setBusy(true);
    setError(null);
    try {
      await onSend(t);
      setText('');
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Could not send the message');
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="chat-thread">
      <ol className="chat-messages" aria-live="polite" aria-label="Messages">
        {messages.length === 0 && (
          <li>
            <EmptyState>{emptyText}</EmptyState>
          </li>
        )}
        {messages.map((m) => (
          <li key={m.id} className={`chat-message ${m.from === self ? 'chat-own' : 'chat-other'}`} data-from={m.from}>
            <p className="chat-text" dir="auto">
              {m.text}
            </p>
            <span className="chat-meta">
              {m.from === 'admin' ? 'Team' : 'Member'} · <time dateTime={m.sentAt}>{chatTime(m.sentAt)}</time>
            </span>
          </li>
        ))}
      </ol>
      <div ref={end} />
      {error && (
        <Alert tone="error" onDismiss={() => setError(null)}>
          {error}
        </Alert>
      )}
      {cannotWrite ? (
        <Alert tone="info">{cannotWrite}</Alert>
      ) : (
        <form className="chat-compose" onSubmit={submit}>
          <label className="visually-hidden" htmlFor={`chat-compose-${self}`}>
            {label}
          </label>
          <textarea
            id={`chat-compose-${self}`}
            className="input"
            rows={3}
            maxLength={CHAT_MAX_LENGTH}
            placeholder="Write a message…"
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey) void submit(e);
            }}
          />
          <Button type="submit" busy={busy} busyLabel="Sending..." disabled={text.trim().length === 0}>
            Send
          </Button>
        </form>
      )}
    </div>
  );
}

/**
 * Adds a pushed or sent message to a thread unless it is there already (a socket push and the POST's
 * answer can both bring it), in the thread's order: by the time it was sent. Pushes need not arrive
 * in that order: with several API processes, a reply taken by the process holding the socket is
 * pushed at once, one taken by another process comes through PostgreSQL's NOTIFY a little later, so
 * a later reply can overtake an earlier one (seen in deploy.int.test.ts).
 */
export function withMessage(messages: ChatMessage[] | undefined, m: ChatMessage): ChatMessage[] {
  const list = messages ?? [];
  if (list.some((x) => x.id === m.id)) return list;
  const entry = { id: m.id, text: m.text, from: m.from, sentAt: m.sentAt };
  // After every message sent at the same time or before (ISO 8601 UTC times compare as strings).
  const at = list.findIndex((x) => x.sentAt > m.sentAt);
  return at < 0 ? [...list, entry] : [...list.slice(0, at), entry, ...list.slice(at)];
}
