/**
 * The member's caption choice (pure helpers): which track to show of those a video has, remembered
 * in localStorage across videos and visits ("off" included), and the text tracks of the player's own
 * `<track>` elements shown or hidden by language. Native HLS (Safari) may add the master playlist's
 * SUBTITLES renditions as text tracks of its own: those stay disabled so no cue is shown twice.
 */

export const CAPTIONS_STORAGE_KEY = 'members.captions';
export const CAPTIONS_OFF = 'off';

export interface CaptionChoiceTrack {
  language: string;
}

/**
 * The language to show: the remembered one when this video has it (or the same base language,
 * `pt` for a remembered `pt-BR`), else none; "off" stays off.
 * @example chooseCaption([{ language: 'en' }, { language: 'pt-BR' }], 'pt') // 'pt-BR'
 */
export function chooseCaption(tracks: readonly CaptionChoiceTrack[], remembered: string | null): string | null {
  if (!remembered || remembered === CAPTIONS_OFF) return null;
  const exact = tracks.find((t) => t.language.toLowerCase() === remembered.toLowerCase());
  if (exact) return exact.language;
  const base = remembered.split('-')[0]?.toLowerCase();
  return tracks.find((t) => t.language.split('-')[0]?.toLowerCase() === base)?.language ?? null;
}

export function rememberedCaption(): string | null {
  try {
    return localStorage.getItem(CAPTIONS_STORAGE_KEY);
  } catch {
    return null;
  }
}

export function rememberCaption(language: string | null): void {
  try {
    localStorage.setItem(CAPTIONS_STORAGE_KEY, language ?? CAPTIONS_OFF);
  } catch {
    // Private browsing without storage: the choice holds for this player only.
  }
}

/** Shows the player's own track of `language` (none: all hidden); every other text track disabled. */
export function showCaption(video: HTMLVideoElement, language: string | null): void {
  const ours = new Set<TextTrack>();
  for (const el of video.querySelectorAll('track')) {
    ours.add(el.track);
    el.track.mode = language && el.srclang === language ? 'showing' : 'disabled';
  }
  for (const track of Array.from(video.textTracks)) if (!ours.has(track)) track.mode = 'disabled';
}
