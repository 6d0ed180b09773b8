import type { ReactNode } from 'react';
import { Pager } from '../../components/Pager';
import { AdminNav } from './AdminNav';

/**
 * An administration list page: the heading and navigation, a filter box, the error or loading state, the list
 * itself (`children`, drawn once loaded) and a pager when it holds more than a page.
 */
export function AdminList({ title, noun, query, onQuery, total, error, pending, start, size, onPage, empty, children }: {
  title: string;
  /** What the filter filters, plural and lower case ("users"). */
  noun: string;
  query: string;
  onQuery: (query: string) => void;
  total: number | undefined;
  error: unknown;
  pending: boolean;
  start: number;
  size: number;
  onPage: (start: number) => void;
  /** Shown instead of the list when it is empty (nothing when absent). */
  empty?: string;
  children: ReactNode;
}) {
  return (
    <div className="admin-page">
      <h1>Administration</h1>
      <AdminNav />
      <div className="admin-toolbar">
        <h2>{title}{total !== undefined ? ` (${total})` : ''}</h2>
        <label htmlFor={`${noun}-filter`} className="visually-hidden">Filter {noun}</label>
        <input id={`${noun}-filter`} type="search" placeholder={`Filter ${noun}`} value={query} onChange={(e) => onQuery(e.target.value)} />
      </div>
      {error ? <p className="error" role="alert">{(error as Error).message}</p> : null}
      {pending ? <p className="muted" role="status">Loading…</p> : total === 0 && empty ? <p className="muted">{empty}</p> : total !== undefined && children}
      {total !== undefined && total > size && <Pager start={start} size={size} total={total} onPage={onPage} />}
    </div>
  );
}
