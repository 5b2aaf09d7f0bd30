/** Edits applied to every selected row at once (empty fields are left alone). */
import { Button } from '@members/ui';
import { useState } from 'react';
import { ACCESS_LEVELS, OTHER_MODEL, type RowFields } from './rows.js';

export function BulkEditBar({
  models,
  selected,
  onApply,
}: {
  models: string[];
  selected: number;
  onApply: (patch: Partial<RowFields>) => void;
}) {
  const [model, setModel] = useState('');
  const [accessLevel, setAccessLevel] = useState('');
  const [tags, setTags] = useState('');
  const [description, setDescription] = useState('');
  const [plans, setPlans] = useState<'' | 'annual' | 'all'>('');
  const [publishAt, setPublishAt] = useState('');
  return (
    <fieldset className="bulk-edit" disabled={selected === 0}>
      <legend>For the {selected} selected rows</legend>
      <select aria-label="Model for selected rows" className="input" value={model} onChange={(e) => setModel(e.target.value)}>
        <option value="">Model…</option>
        {[...models, OTHER_MODEL].map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
      <select
        aria-label="Access level for selected rows"
        className="input"
        value={accessLevel}
        onChange={(e) => setAccessLevel(e.target.value)}
      >
        <option value="">Access level…</option>
        {ACCESS_LEVELS.map((a) => (
          <option key={a} value={a}>
            {a}
          </option>
        ))}
      </select>
      <input
        aria-label="Tags for selected rows"
        className="input"
        placeholder="Tags, comma-separated"
        value={tags}
        onChange={(e) => setTags(e.target.value)}
      />
      <input
        aria-label="Description for selected rows"
        className="input"
        placeholder="Description"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
      />
      <select
        aria-label="Plans for selected rows"
        className="input"
        value={plans}
        onChange={(e) => setPlans(e.target.value as '' | 'annual' | 'all')}
      >
        <option value="">Plans…</option>
        <option value="annual">Annual plan only (behind the scenes)</option>
        <option value="all">Every plan</option>
      </select>
      <input
        type="datetime-local"
        aria-label="Release at for selected rows"
        title="Release at (empty: leave as is)"
        className="input"
        value={publishAt}
        onChange={(e) => setPublishAt(e.target.value)}
      />
      <Button
        size="sm"
        onClick={() =>
          onApply({
            model,
            accessLevel: (accessLevel || undefined) as RowFields['accessLevel'] | undefined,
            tags,
            description,
            exclusiveTo: plans === '' ? undefined : plans === 'annual' ? 'annual' : '',
            publishAt: publishAt || undefined,
          })
        }
      >
        Apply to selected
      </Button>
    </fieldset>
  );
}
