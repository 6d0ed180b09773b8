import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** One element of a file's top-level JSON array, as its own text (parsed by the caller, one at a time). */
export interface RecordText {
  index: number;
  text: string;
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
            yield { index: index++, text: carried + text.slice(start, i), bytesRead };
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
