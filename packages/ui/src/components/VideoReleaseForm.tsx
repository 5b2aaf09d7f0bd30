/**
 * A video's release on the admin's library (web /admin and the desktop console): "Annual plan only
 * (behind the scenes)" and "Release at" (the admin's local time, sent as ISO 8601 with its offset;
 * cleared, no schedule). Saving sends both in one PUT /admin/videos/{id}. docs/videos.md.
 */
import { type FormEvent, useId, useState } from 'react';
import type { AdminVideo, AdminVideoChanges } from '../api/types';
import { isoToLocalInput, localInputToIso } from '../format/release';
import { Button } from './Button';
import { Alert } from './Feedback';
import { CheckboxField, FormField } from './FormField';

export interface VideoReleaseFormProps {
  video: AdminVideo;
  busy?: boolean;
  onSave(changes: Pick<AdminVideoChanges, 'exclusiveTo' | 'publishAt'>): void;
  onClose(): void;
}

/** The two release controls, as the upload form and the release form both show them. */
export function ReleaseFields(props: {
  annualOnly: boolean;
  onAnnualOnly(annualOnly: boolean): void;
  /** The `datetime-local` input's value (the admin's local time). */
  releaseAt: string;
  onReleaseAt(value: string): void;
  hint: string;
}) {
  return (
    <div className="form-grid">
      <CheckboxField
        label="Annual plan only (behind the scenes)"
        name="exclusiveTo"
        checked={props.annualOnly}
        onChange={(e) => props.onAnnualOnly(e.target.checked)}
      />
      <FormField
        label="Release at"
        name="publishAt"
        type="datetime-local"
        hint={props.hint}
        value={props.releaseAt}
        onChange={(e) => props.onReleaseAt(e.target.value)}
      />
    </div>
  );
}

export function VideoReleaseForm({ video, busy, onSave, onClose }: VideoReleaseFormProps) {
  const id = useId();
  const [annualOnly, setAnnualOnly] = useState(video.exclusiveTo === 'annual');
  const [releaseAt, setReleaseAt] = useState(isoToLocalInput(video.publishAt));
  const [error, setError] = useState<string | null>(null);

  function submit(e: FormEvent) {
    e.preventDefault();
    const publishAt = localInputToIso(releaseAt);
    if (releaseAt && !publishAt) {
      setError('Please enter the release date and time in full, or clear it');
      return;
    }
    setError(null);
    onSave({ exclusiveTo: annualOnly ? 'annual' : null, publishAt });
  }

  return (
    <section className="video-release" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Release of "{video.title}"</h3>
      {error && <Alert onDismiss={() => setError(null)}>{error}</Alert>}
      <form onSubmit={submit} noValidate>
        <ReleaseFields
          annualOnly={annualOnly}
          onAnnualOnly={setAnnualOnly}
          releaseAt={releaseAt}
          onReleaseAt={setReleaseAt}
          hint="Your local time; empty: no schedule"
        />
        <div className="row-actions">
          <Button type="submit" size="sm" busy={busy} busyLabel="Saving...">
            Save release
          </Button>
          <Button size="sm" variant="secondary" disabled={!releaseAt} onClick={() => setReleaseAt('')}>
            Clear release time
          </Button>
          <Button size="sm" variant="ghost" onClick={onClose}>
            Close
          </Button>
        </div>
      </form>
    </section>
  );
}
