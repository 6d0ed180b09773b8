import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** One element of a file's top-level JSON array, as its own text (parsed by the caller, one at a time). */
export interface RecordText {
  index: number;
  text: string;
  /** Where the element's text starts in the file, in characters. */
  start: number;
  /** How much of the file has been read so far (whole chunks). */
  bytesRead: number;
}

/** Where a file stops being a JSON array of values: the reason, and how many elements came before. */
export class MalformedArrayError extends Error {
  constructor(message: string, readonly index: number) {
    super(message);
  }
}

/**
 * The elements of a file holding one JSON array, read a chunk at a time: memory holds one chunk and one element, not
 * the file (V8 cannot hold a string over 512 MiB, so a large metadata file cannot be read whole at all). Each
 * element's boundaries are found by tracking strings and nesting; its text is returned unparsed. A file that is not
 * an array, or breaks off, throws MalformedArrayError after the elements before the fault.
 */
export async function* arrayElements(file: string, chunkBytes = 1 << 20): AsyncGenerator<RecordText> {
  const decoder = new StringDecoder('utf8');
  /** Text of the element being read that earlier chunks held. */
  let carried = '';
  let index = 0;
  let depth = 0; // 0 before the array, 1 between its elements, more inside one
  let inString = false;
  let escaped = false;
  let closed = false;
  let elementStarted = false;
  let elementStart = 0;
  let position = 0;
  let bytesRead = 0;
  const fail = (what: string): never => {
    throw new MalformedArrayError(`not a JSON array of records: ${what} at character ${position}`, index);
  };
  for await (const chunk of createReadStream(file, { highWaterMark: chunkBytes })) {
    bytesRead += (chunk as Buffer).length;
    const text = decoder.write(chunk as Buffer);
    let start = 0; // where the current element's text starts in this chunk
    for (let i = 0; i < text.length; i++, position++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true; // backslash
        else if (c === 0x22) inString = false; // quote
        continue;
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      if (closed) fail('text after the array');
      if (depth === 0) {
        if (c !== 0x5b) fail('the file does not start with [');
        depth = 1;
        continue;
      }
      if (depth === 1) {
        if (c === 0x2c || c === 0x5d) { // , or ]: the element ends
          if (elementStarted) {
            yield { index: index++, text: carried + text.slice(start, i), start: elementStart, bytesRead };
            carried = '';
            elementStarted = false;
          } else if (c === 0x2c || index > 0) {
            fail(c === 0x2c ? 'an empty element' : 'a comma before ]');
          }
          if (c === 0x5d) closed = true;
          continue;
        }
        if (!elementStarted) {
          elementStarted = true;
          elementStart = position;
          start = i;
        }
      }
      if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if ((c === 0x7d || c === 0x5d) && --depth < 1) fail('a closing bracket with no opening one');
    }
    if (elementStarted) {
      carried += text.slice(start);
      start = 0;
    }
  }
  if (!closed) fail('the array is not closed');
}

/** Where a text stops being JSON: the offset (in characters) of the fault, and what is wrong there. */
export interface JsonFault {
  offset: number;
  problem: string;
}

const WS = new Set([0x20, 0x0a, 0x0d, 0x09]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The first syntax fault of a text JSON.parse refused (V8's messages do not always say where), or undefined when it
 * is valid JSON. Read without recursion, so nesting depth does not matter.
 */
export function jsonFault(text: string): JsonFault | undefined {
  const n = text.length;
  const stack: number[] = []; // 0x5b [ or 0x7b {
  let i = 0;
  type Expect = 'value' | 'valueOrClose' | 'key' | 'keyOrClose' | 'colon' | 'next' | 'end';
  let expect = 'value' as Expect; // (set in closures too: no narrowing)
  const fault = (problem: string): JsonFault => ({ offset: i, problem });
  const shown = (c: number) => (c < 0x20 ? `the control character U+${c.toString(16).padStart(4, '0').toUpperCase()}` : `'${String.fromCharCode(c)}'`);
  const afterValue = () => { expect = stack.length ? 'next' : 'end'; };
  /** Reads a string at i (its opening quote); undefined when it closes, else the fault. */
  const string = (): JsonFault | undefined => {
    for (i++; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) { i++; return undefined; }
      if (c < 0x20) return fault(`${shown(c)} inside a string (write it escaped)`);
      if (c === 0x5c) {
        const e = text.charCodeAt(++i);
        if (e === 0x75) {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) return fault('\\u not followed by four hexadecimal digits');
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text.charAt(i)) || i >= n) {
          return fault(i >= n ? 'it ends inside a string' : `an unknown escape '\\${text.charAt(i)}'`);
        }
      }
    }
    return fault('it ends inside a string');
  };
  for (;;) {
    while (i < n && WS.has(text.charCodeAt(i))) i++;
    if (i >= n) return expect === 'end' ? undefined : fault('it ends before the JSON is complete');
    const c = text.charCodeAt(i);
    switch (expect) {
      case 'end':
        return fault(`text after the end of the JSON value: ${shown(c)}`);
      case 'colon':
        if (c !== 0x3a) return fault(`expected ':' after a property name, found ${shown(c)}`);
        i++;
        expect = 'value';
        continue;
      case 'next': {
        const top = stack[stack.length - 1]!;
        const close = top === 0x5b ? 0x5d : 0x7d;
        if (c === 0x2c) { i++; expect = top === 0x5b ? 'value' : 'key'; continue; }
        if (c === close) { i++; stack.pop(); afterValue(); continue; }
        return fault(`expected ',' or '${String.fromCharCode(close)}', found ${shown(c)}`);
      }
      case 'key':
      case 'keyOrClose':
        if (c === 0x7d && expect === 'keyOrClose') { i++; stack.pop(); afterValue(); continue; }
        if (c !== 0x22) return fault(`expected a property name in double quotes, found ${shown(c)}`);
        { const f = string(); if (f) return f; }
        expect = 'colon';
        continue;
      case 'valueOrClose':
        if (c === 0x5d) { i++; stack.pop(); afterValue(); continue; }
      // falls through
      case 'value': {
        if (c === 0x5b || c === 0x7b) { stack.push(c); i++; expect = c === 0x5b ? 'valueOrClose' : 'keyOrClose'; continue; }
        if (c === 0x22) { const f = string(); if (f) return f; afterValue(); continue; }
        const literal = ['true', 'false', 'null'].find((w) => text.startsWith(w, i));
        if (literal) { i += literal.length; afterValue(); continue; }
        NUMBER.lastIndex = i;
        if ((c === 0x2d || (c >= 0x30 && c <= 0x39)) && NUMBER.test(text)) { i = NUMBER.lastIndex; afterValue(); continue; }
        return fault(`expected a value, found ${shown(c)}`);
      }
    }
  }
}

/** The 1-based line and column of an offset in a text. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
