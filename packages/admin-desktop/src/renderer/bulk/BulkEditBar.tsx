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
      <Button
        size="sm"
        onClick={() =>
          onApply({ model, accessLevel: (accessLevel || undefined) as RowFields['accessLevel'] | undefined, tags, description })
        }
      >
        Apply to selected
      </Button>
    </fieldset>
  );
}
