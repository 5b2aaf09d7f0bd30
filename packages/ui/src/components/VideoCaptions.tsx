/**
 * A video's caption tracks on the admin's library (web /admin and the desktop console): the tracks
 * by language and label, each removable, and a form adding a `.vtt` or `.srt` file for a language
 * (the same language replaces its track). The server parses and cleans the file; its refusal (with
 * the file's line) is shown as it says it. docs/videos.md#captions.
 */
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { AdminVideo } from '../api/types';
import { errorText } from '../format/errorText';
import { Button } from './Button';
import { Alert } from './Feedback';

export function VideoCaptions({ api, video, onChanged }: { api: ApiClient; video: AdminVideo; onChanged(): void }) {
  const id = useId();
  const [file, setFile] = useState<File | null>(null);
  const [language, setLanguage] = useState('');
  const [label, setLabel] = useState('');
  const [notice, setNotice] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const tracks = video.captions ?? [];

  const add = useMutation({
    mutationFn: () => api.addCaption(video.id, file as File, language.trim(), label.trim() || undefined, file?.name),
    onSuccess: (track) => {
      setNotice({ tone: 'success', text: `Captions "${track.label}" (${track.language}) saved: ${track.cues} cues` });
      setFile(null);
      setLabel('');
      onChanged();
    },
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Failed to add captions') }),
  });
  const remove = useMutation({
    mutationFn: (lang: string) => api.removeCaption(video.id, lang),
    onSuccess: (r) => {
      setNotice({ tone: 'success', text: `Captions (${r.language}) removed` });
      onChanged();
    },
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Failed to remove captions') }),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!file || !language.trim()) {
      setNotice({ tone: 'error', text: 'Choose a .vtt or .srt file and its language (en, pt-BR)' });
      return;
    }
    add.mutate();
  }

  return (
    <section className="video-captions" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Captions of "{video.title}"</h3>
      {notice && (
        <Alert tone={notice.tone} onDismiss={() => setNotice(null)}>
          {notice.text}
        </Alert>
      )}
      {tracks.length === 0 ? (
        <p>No captions yet.</p>
      ) : (
        <ul className="caption-tracks">
          {tracks.map((t) => (
            <li key={t.language}>
              <span lang={t.language} dir="auto">
                {t.label}
              </span>{' '}
              <code>{t.language}</code>{' '}
              <Button
                size="sm"
                variant="danger"
                disabled={remove.isPending}
                onClick={() => remove.mutate(t.language)}
                aria-label={`Remove captions ${t.label}`}
              >
                Remove
              </Button>
            </li>
          ))}
        </ul>
      )}
      <form className="caption-form" onSubmit={submit}>
        <label htmlFor={`${id}-file`}>Caption file (.vtt or .srt, up to 1 MiB)</label>
        <input
          id={`${id}-file`}
          type="file"
          accept=".vtt,.srt,text/vtt"
          onChange={(e) => {
            const f = e.target.files?.[0] ?? null;
            setFile(f);
            // clip.pt-BR.srt: the language from the name, as the import does.
            const named = f && /\.([a-z]{2,3}(?:-[A-Za-z0-9]+)?)\.(?:vtt|srt)$/i.exec(f.name)?.[1];
            if (named && !language) setLanguage(named);
          }}
        />
        <label htmlFor={`${id}-language`}>Language (BCP 47: en, pt-BR)</label>
        <input id={`${id}-language`} value={language} onChange={(e) => setLanguage(e.target.value)} maxLength={35} />
        <label htmlFor={`${id}-label`}>Label (optional; else the language's own name)</label>
        <input id={`${id}-label`} value={label} onChange={(e) => setLabel(e.target.value)} maxLength={80} />
        <Button type="submit" busy={add.isPending}>
          Add captions
        </Button>
      </form>
    </section>
  );
}
