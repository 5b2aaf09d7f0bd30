/**
 * 'Upload New Video': title (required), model, duration (mm:ss), description, video file (required),
 * thumbnail (optional), access level, "Annual plan only (behind the scenes)" and "Release at" (a
 * scheduled release, in the admin's time zone, sent as ISO 8601 with its offset), with an upload
 * progress bar. Success clears the form and files.
 */
import { type FormEvent, useRef, useState } from 'react';
import type { UploadVideoPayload } from '../api/types';
import { localInputToIso } from '../format/release';
import { Button } from './Button';
import { Card } from './Card';
import { Alert } from './Feedback';
import { FormField, SelectField, TextAreaField } from './FormField';
import { ReleaseFields } from './VideoReleaseForm';

export interface UploadVideoFormProps {
  /** The three configured model names; 'Other' is added. */
  models: string[];
  onUpload(payload: UploadVideoPayload, onProgress: (fraction: number) => void): Promise<{ videoId: string }>;
  onUploaded?(videoId: string): void;
}

const EMPTY = {
  title: '',
  model: '',
  duration: '',
  description: '',
  accessLevel: 'premium',
  tags: '',
  categories: '',
  /** The datetime-local value, '' for a release at once. */
  publishAt: '',
};

export function UploadVideoForm({ models, onUpload, onUploaded }: UploadVideoFormProps) {
  const [fields, setFields] = useState(EMPTY);
  const [video, setVideo] = useState<File | null>(null);
  const [thumbnail, setThumbnail] = useState<File | null>(null);
  const [annualOnly, setAnnualOnly] = useState(false);
  const [progress, setProgress] = useState<number | null>(null);
  const [message, setMessage] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const busy = progress !== null;

  const set = (k: keyof typeof EMPTY) => (e: { target: { value: string } }) => setFields((f) => ({ ...f, [k]: e.target.value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    setMessage(null);
    if (!fields.title.trim() || !video) {
      setMessage({ tone: 'error', text: 'Please provide at least a title and video file' });
      return;
    }
    const publishAt = localInputToIso(fields.publishAt);
    if (fields.publishAt && !publishAt) {
      setMessage({ tone: 'error', text: 'Please enter the release date and time in full, or clear it' });
      return;
    }
    setProgress(0);
    try {
      const { videoId } = await onUpload(
        {
          title: fields.title.trim(),
          description: fields.description,
          model: fields.model,
          duration: fields.duration,
          accessLevel: fields.accessLevel,
          tags: fields.tags,
          categories: fields.categories,
          exclusiveTo: annualOnly ? 'annual' : null,
          publishAt,
          video,
          thumbnail,
        },
        setProgress,
      );
      setMessage({ tone: 'success', text: `Video "${fields.title.trim()}" uploaded successfully! Video ID: ${videoId}` });
      setFields(EMPTY);
      setVideo(null);
      setThumbnail(null);
      setAnnualOnly(false);
      formRef.current?.reset();
      onUploaded?.(videoId);
    } catch (err) {
      setMessage({ tone: 'error', text: (err as Error).message || 'Failed to upload video' });
    } finally {
      setProgress(null);
    }
  }

  const modelOptions = [
    { value: '', label: 'Select Model' },
    ...models.map((m) => ({ value: m, label: m })),
    { value: 'Other', label: 'Other' },
  ];

  return (
    <Card title="Upload New Video" className="upload-form">
      <form ref={formRef} onSubmit={submit} noValidate>
        {message && (
          <Alert tone={message.tone} onDismiss={() => setMessage(null)}>
            {message.text}
          </Alert>
        )}
        <div className="form-grid">
          <FormField label="Title *" name="title" value={fields.title} onChange={set('title')} required />
          <SelectField label="Model" name="model" value={fields.model} onChange={set('model')} options={modelOptions} />
          <FormField
            label="Duration (mm:ss)"
            name="duration"
            placeholder="12:34"
            value={fields.duration}
            onChange={set('duration')}
            inputMode="numeric"
          />
          <SelectField
            label="Access Level"
            name="accessLevel"
            value={fields.accessLevel}
            onChange={set('accessLevel')}
            options={[
              { value: 'free', label: 'Free' },
              { value: 'premium', label: 'Premium' },
              { value: 'vip', label: 'VIP' },
            ]}
          />
        </div>
        <div className="form-grid">
          <FormField label="Tags" name="tags" placeholder="comma, separated" value={fields.tags} onChange={set('tags')} />
          <FormField
            label="Categories"
            name="categories"
            placeholder="comma, separated"
            value={fields.categories}
            onChange={set('categories')}
          />
        </div>
        <ReleaseFields
          annualOnly={annualOnly}
          onAnnualOnly={setAnnualOnly}
          releaseAt={fields.publishAt}
          onReleaseAt={(publishAt) => setFields((f) => ({ ...f, publishAt }))}
          hint="Your local time; leave empty to release at once"
        />
        <TextAreaField label="Description" name="description" rows={3} value={fields.description} onChange={set('description')} />
        <div className="form-grid">
          <FormField
            label="Video File *"
            name="video"
            type="file"
            accept="video/*"
            hint="MP4, MOV, AVI"
            required
            onChange={(e) => setVideo(e.target.files?.[0] ?? null)}
          />
          <FormField
            label="Thumbnail Image"
            name="thumbnail"
            type="file"
            accept="image/*"
            hint="Optional; JPG or PNG recommended"
            onChange={(e) => setThumbnail(e.target.files?.[0] ?? null)}
          />
        </div>
        {busy && (
          <div className="progress-row">
            <progress max={1} value={progress ?? 0} aria-label="Upload progress" />
            <span>{Math.round((progress ?? 0) * 100)}%</span>
          </div>
        )}
        <Button type="submit" busy={busy} busyLabel="Uploading...">
          Upload Video
        </Button>
      </form>
    </Card>
  );
}
