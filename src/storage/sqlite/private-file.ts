import fs from 'node:fs';

/**
 * The database file holds the token signing key (unless ALMANAC_TOKEN_SECRET or _FILE is set) and every token's
 * hash: only its owner may read it. A new file is created with mode 0600 before SQLite opens it, and SQLite gives the
 * -wal and -shm files it creates the database file's mode. An existing file (or -wal, -shm) that grants group or
 * others any access is tightened to owner-only, with a warning; one that is already private is left as it is.
 */
export function openPrivately(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`]) keepPrivate(f);
}

export function keepPrivate(file: string): void {
  if (process.platform === 'win32') return;
  let mode: number;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    return; // not there (yet)
  }
  if ((mode & 0o077) === 0) return;
  const show = (m: number) => `0${m.toString(8).padStart(3, '0')}`;
  try {
    fs.chmodSync(file, mode & 0o700);
    process.stderr.write(`almanac: warning: ${file} was open to other users (mode ${show(mode)}); changed to ${show(mode & 0o700)}\n`);
  } catch (e) {
    process.stderr.write(`almanac: warning: ${file} is open to other users (mode ${show(mode)}) and could not be changed: ${(e as Error).message}\n`);
  }
}
