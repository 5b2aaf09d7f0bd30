/**
 * The player's captions: `<track>` elements over the signed WebVTT URLs (every engine renders
 * them), the member's remembered language when this video has it (captions.ts), shown on the
 * element (again whenever a text track is added: native HLS adds the master's own, kept hidden),
 * and the CC menu: a menu button, arrow keys, Home and End inside it, Escape closes.
 */
import type { StreamInfo } from '@members/ui/api';
import { type KeyboardEvent, type RefObject, useEffect, useRef, useState } from 'react';
import { chooseCaption, rememberCaption, rememberedCaption, showCaption } from './captions';

export function useCaptions(videoRef: RefObject<HTMLVideoElement | null>, stream: StreamInfo | null) {
  const [caption, setCaption] = useState<string | null>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  const tracks = stream?.captions ?? [];

  useEffect(() => {
    setCaption(stream ? chooseCaption(stream.captions ?? [], rememberedCaption()) : null);
  }, [stream]);

  useEffect(() => {
    const el = videoRef.current;
    if (!el || !stream) return;
    const apply = () => showCaption(el, caption);
    apply();
    el.textTracks.addEventListener('addtrack', apply);
    return () => el.textTracks.removeEventListener('addtrack', apply);
  }, [caption, stream, videoRef]);

  useEffect(() => {
    if (!menuOpen) return;
    const menu = menuRef.current;
    (menu?.querySelector<HTMLElement>('[aria-checked=true]') ?? menu?.querySelector<HTMLElement>('[role=menuitemradio]'))?.focus();
  }, [menuOpen]);

  function pick(language: string | null) {
    setCaption(language);
    rememberCaption(language);
    setMenuOpen(false);
    buttonRef.current?.focus();
  }

  function menuKeys(e: KeyboardEvent<HTMLDivElement>) {
    const items = [...(menuRef.current?.querySelectorAll<HTMLElement>('[role=menuitemradio]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const go = (i: number) => items[(i + items.length) % items.length]?.focus();
    if (e.key === 'ArrowDown') go(at + 1);
    else if (e.key === 'ArrowUp') go(at - 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(items.length - 1);
    else if (e.key === 'Escape' || e.key === 'Tab') {
      setMenuOpen(false);
      if (e.key === 'Tab') return;
      buttonRef.current?.focus();
    } else return;
    e.preventDefault();
  }

  return { tracks, caption, menuOpen, toggleMenu: () => setMenuOpen((open) => !open), pick, menuKeys, buttonRef, menuRef };
}

export type Captions = ReturnType<typeof useCaptions>;
