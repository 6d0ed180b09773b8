import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { gql } from '../gql';
import { PICK } from '../graphql/entity';
import { summarize, type RawEntity } from '../entitySummary';

/**
 * "Add a tag / term / owner / domain": a labelled text box suggesting matching entities of the given types (search
 * as you type); a click, or Enter on the first suggestion, picks one. Arrow keys move through the suggestions.
 */
export function Picker({ types, label, onPick, placeholder, autoFocus = false, onCancel }: {
  types: string[];
  label: string;
  placeholder?: string;
  /** Focus the box when it appears (it opened on the user's click: typing goes there at once). */
  autoFocus?: boolean;
  /** Escape on an empty box: the caller closes it. */
  onCancel?: () => void;
  onPick: (entity: RawEntity) => Promise<unknown>;
}) {
  const [text, setText] = useState('');
  const [debounced, setDebounced] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  useEffect(() => {
    const t = window.setTimeout(() => setDebounced(text.trim()), 150);
    return () => window.clearTimeout(t);
  }, [text]);
  const { data } = useQuery({
    queryKey: ['pick', types, debounced],
    enabled: debounced.length > 0,
    queryFn: ({ signal }) => gql(PICK,
      { input: { types, query: debounced, start: 0, count: 8, searchFlags: { skipAggregates: true } } }, { signal }),
  });
  const options = debounced ? data?.searchAcrossEntities?.searchResults.map((r) => r.entity) ?? [] : [];

  const pick = async (e: RawEntity) => {
    setBusy(true);
    setError(null);
    try {
      await onPick(e);
      setText('');
      setDebounced('');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="picker">
      <div className="add-form">
        <label htmlFor={id} className="visually-hidden">{label}</label>
        <input id={id} value={text} placeholder={placeholder ?? label} disabled={busy} autoComplete="off" autoFocus={autoFocus}
          aria-controls={options.length ? `${id}-options` : undefined}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && options[0]) {
              e.preventDefault();
              void pick(options[0]);
            } else if (e.key === 'ArrowDown') {
              e.preventDefault();
              (document.getElementById(`${id}-options`)?.querySelector('button') as HTMLElement | null)?.focus();
            } else if (e.key === 'Escape') {
              if (text === '' && onCancel) onCancel();
              else setText('');
            }
          }} />
      </div>
      {options.length > 0 && (
        <ul className="picker-options" id={`${id}-options`} aria-label={`${label}: suggestions`}
          onKeyDown={(e) => {
            const buttons = [...e.currentTarget.querySelectorAll('button')];
            const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
            if (e.key === 'ArrowDown' && at < buttons.length - 1) { e.preventDefault(); buttons[at + 1]!.focus(); }
            if (e.key === 'ArrowUp') { e.preventDefault(); if (at > 0) buttons[at - 1]!.focus(); else document.getElementById(id)?.focus(); }
          }}>
          {options.map((o) => (
            <li key={o.urn}>
              <button type="button" className="linklike" onClick={() => pick(o)}>
                {summarize(o).name}{types.length > 1 && <span className="muted small"> · {summarize(o).typeLabel}</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
      {debounced && data && options.length === 0 && <p className="muted small">Nothing matches “{debounced}”.</p>}
      {error && <p className="error small" role="alert">{error}</p>}
    </div>
  );
}
