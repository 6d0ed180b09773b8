import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { Markdown } from './Markdown';

/**
 * Documentation shown as Markdown, edited in place: "Edit" swaps in a textarea (labelled), Save calls `onSave` and
 * returns to reading when it resolves; an error stays in view. Escape cancels, Ctrl/Cmd+Enter saves.
 */
export function EditableMarkdown({ value, onSave, label, canEdit = true, empty = 'No documentation yet.', compact = false }: {
  value: string;
  onSave: (text: string) => Promise<unknown>;
  label: string;
  canEdit?: boolean;
  empty?: ReactNode;
  compact?: boolean;
}) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(value);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const area = useRef<HTMLTextAreaElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!editing) setDraft(value);
  }, [value, editing]);
  useEffect(() => {
    if (editing) area.current?.focus();
  }, [editing]);

  const save = async () => {
    setSaving(true);
    setError(null);
    try {
      await onSave(draft);
      setEditing(false);
      window.setTimeout(() => editButton.current?.focus(), 0);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setSaving(false);
    }
  };

  if (editing) {
    return (
      <div className="inline-edit">
        <label htmlFor={id} className={compact ? 'visually-hidden' : undefined}>{label}</label>
        <textarea id={id} ref={area} value={draft} rows={compact ? 3 : 8} style={compact ? { minHeight: 60 } : undefined}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') setEditing(false);
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void save();
          }} />
        {error && <p className="error" role="alert">{error}</p>}
        <div className="actions">
          <button type="button" className="btn primary small" onClick={save} disabled={saving}>{saving ? 'Saving…' : 'Save'}</button>
          <button type="button" className="btn small" onClick={() => setEditing(false)} disabled={saving}>Cancel</button>
        </div>
      </div>
    );
  }
  return (
    <div className={compact ? 'editable compact' : 'editable'}>
      {value.trim() ? <Markdown text={value} /> : <p className="muted">{empty}</p>}
      {canEdit && (
        <button type="button" ref={editButton} className="btn small subtle edit-button" aria-label={`Edit ${label.toLowerCase()}`} onClick={() => setEditing(true)}>
          Edit
        </button>
      )}
    </div>
  );
}
