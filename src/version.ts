import { readFileSync } from 'node:fs';

/** Almanac's own version, from package.json; and the DataHub release whose API we speak. */
export const ALMANAC_VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
export const DATAHUB_VERSION = 'v0.12.1';
