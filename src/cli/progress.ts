/** A one-line progress bar on stderr, drawn only when stderr is a terminal (logs and CI stay clean). */
export function progressBar(label: string) {
  const tty = process.stderr.isTTY;
  let last = -1;
  return {
    update(done: number, total: number, unit: 'records' | 'bytes' = 'records') {
      if (!tty || total === 0) return;
      const pct = Math.floor((done / total) * 100);
      if (pct === last) return;
      last = pct;
      const width = 30;
      const filled = Math.round((pct / 100) * width);
      const counts = unit === 'bytes' ? `${(done / 1048576).toFixed(0)}/${(total / 1048576).toFixed(0)} MiB` : `${done}/${total}`;
      process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${pct}% (${counts})`);
    },
    done() {
      if (tty && last >= 0) process.stderr.write('\n');
    },
  };
}
