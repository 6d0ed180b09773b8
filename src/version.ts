import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's package.json: the nearest above this module (src/, dist/ or dist/bundle/, which sit at different depths). */
function packageJsonFile(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file) || path.dirname(dir) === dir) return file;
  }
}

/** Almanac's own version, from package.json; and the DataHub release whose API we speak. */
export const ALMANAC_VERSION: string = JSON.parse(readFileSync(packageJsonFile(), 'utf8')).version;
export const DATAHUB_VERSION = 'v0.12.1';
