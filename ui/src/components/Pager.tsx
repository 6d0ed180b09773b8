/** Previous / Next over a list shown `size` at a time from `start`, with the range in between. */
export function Pager({ start, size, total, onPage }: { start: number; size: number; total: number; onPage: (start: number) => void }) {
  return (
    <div className="pager">
      <button type="button" className="btn small" disabled={start === 0} onClick={() => onPage(Math.max(0, start - size))}>Previous</button>
      <span className="small muted">{start + 1}–{Math.min(total, start + size)} of {total}</span>
      <button type="button" className="btn small" disabled={start + size >= total} onClick={() => onPage(start + size)}>Next</button>
    </div>
  );
}
