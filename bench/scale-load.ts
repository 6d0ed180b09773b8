import { load, RESULT_MARK } from './scale.js';

/**
 * `node --import tsx bench/scale-load.ts <database url> <datasets>`: the scale benchmark's load, run by it in a process
 * of its own; progress on stdout, then the result as one JSON line after RESULT_MARK.
 */
const [url, n] = process.argv.slice(2);
const result = await load(url!, Number(n));
console.log(`${RESULT_MARK}${JSON.stringify(result)}`);
