/** Reading a test definition's JSON or YAML text into a document, refusing a syntax error with its line and column. */
import { createRequire } from 'node:module';
import type { parseDocument as ParseDocument } from 'yaml';
import { badRequest } from '../../errors.js';
import { PREFIX } from './definition-error.js';

// The YAML parser is loaded on first use, not when the catalog opens: most commands and starts never parse a test.
let yamlParse: typeof ParseDocument | undefined;
const parseDocument: typeof ParseDocument = (...args) =>
  (yamlParse ??= (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parseDocument)(...args);

export function readDocument(source: string, format?: 'JSON' | 'YAML'): unknown {
  const fmt = format?.toUpperCase();
  if (fmt === 'YAML') return readYaml(source);
  if (fmt === 'JSON') return readJson(source);
  if (fmt !== undefined) throw badRequest(`${PREFIX}unknown format '${format}' (expected JSON or YAML)`, { path: '' });
  // DataHub stores JSON; text that starts like JSON is held to JSON (YAML would quietly accept broken JSON such
  // as `{"operator": }`). YAML flow style (`{on: {types: [dataset]}}`) therefore needs format 'YAML'.
  const first = source.trimStart()[0];
  return first === '{' || first === '[' ? readJson(source) : readYaml(source);
}

function syntaxError(format: 'JSON' | 'YAML', source: string, offset: number, message: string) {
  const { line, column } = lineColumn(source, offset);
  return badRequest(`${PREFIX}line ${line}, column ${column}: ${message}`, { format, line, column });
}

function lineColumn(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, source.length);
  for (let i = 0; i < end; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

function readJson(source: string): unknown {
  try {
    return JSON.parse(source);
  } catch (e) {
    // Node's JSON.parse messages carry no reliable position; a small recogniser finds and words the error.
    const located = locateJsonError(source);
    if (located) throw syntaxError('JSON', source, located.offset, located.message);
    throw badRequest(`${PREFIX}invalid JSON: ${(e as Error).message}`, { format: 'JSON' });
  }
}

function readYaml(source: string): unknown {
  const doc = parseDocument(source, { prettyErrors: false, uniqueKeys: true, schema: 'core' });
  const err = doc.errors[0];
  if (err) {
    const message = err.code === 'MULTIPLE_DOCS' ? 'a test definition must be a single YAML document' : err.message;
    throw syntaxError('YAML', source, err.pos[0], message);
  }
  return doc.toJS({ maxAliasCount: 100 });
}

/** Finds the first syntax error of a JSON text, or undefined when there is none (or it is too deep to scan). */
function locateJsonError(text: string): { offset: number; message: string } | undefined {
  const n = text.length;
  let pos = 0;
  class Stop {
    constructor(readonly offset: number, readonly message: string) {}
  }
  const ws = () => {
    while (pos < n) {
      const c = text.charCodeAt(pos);
      if (c === 32 || c === 9 || c === 10 || c === 13) pos++;
      else break;
    }
  };
  const unexpected = (expected: string): never => {
    if (pos >= n) throw new Stop(pos, `Unexpected end of input, expected ${expected}`);
    throw new Stop(pos, `Unexpected token ${tokenAt(text, pos)}, expected ${expected}`);
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const string = () => {
    const start = pos;
    pos++;
    for (;;) {
      if (pos >= n) throw new Stop(start, 'Unterminated string');
      const c = text.charCodeAt(pos);
      if (c === 34) {
        pos++;
        return;
      }
      if (c === 92) {
        const e = text[pos + 1];
        if (e !== undefined && '"\\/bfnrt'.includes(e)) pos += 2;
        else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) pos += 6;
        else throw new Stop(pos, 'Bad escape sequence in string');
      } else if (c === 10 || c === 13) {
        throw new Stop(pos, 'Unexpected line break in string');
      } else if (c < 32) {
        throw new Stop(pos, 'Bad control character in string');
      } else pos++;
    }
  };
  const value = (): void => {
    ws();
    const c = text[pos];
    if (c === '{') {
      pos++;
      ws();
      if (text[pos] === '}') {
        pos++;
        return;
      }
      for (;;) {
        ws();
        if (text[pos] !== '"') unexpected('a property name in double quotes');
        string();
        ws();
        if (text[pos] !== ':') unexpected("':'");
        pos++;
        value();
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return;
        }
        unexpected("',' or '}'");
      }
    }
    if (c === '[') {
      pos++;
      ws();
      if (text[pos] === ']') {
        pos++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return;
        }
        unexpected("',' or ']'");
      }
    }
    if (c === '"') return string();
    for (const lit of ['true', 'false', 'null']) {
      if (text.startsWith(lit, pos) && !/[A-Za-z0-9_$]/.test(text[pos + lit.length] ?? '')) {
        pos += lit.length;
        return;
      }
    }
    NUMBER.lastIndex = pos;
    if ((c === '-' || (c !== undefined && c >= '0' && c <= '9')) && NUMBER.test(text)) {
      pos = NUMBER.lastIndex;
      return;
    }
    unexpected('a value');
  };
  try {
    value();
    ws();
    if (pos < n) throw new Stop(pos, `Unexpected token ${tokenAt(text, pos)} after the end of the definition`);
    return undefined;
  } catch (e) {
    if (e instanceof Stop) return { offset: e.offset, message: e.message };
    if (e instanceof RangeError) return undefined;
    throw e;
  }
}

function tokenAt(text: string, pos: number): string {
  const word = /[A-Za-z0-9_$.+-]{1,30}/y;
  word.lastIndex = pos;
  const m = word.exec(text);
  const tok = m ? m[0] : String.fromCodePoint(text.codePointAt(pos)!);
  return `'${JSON.stringify(tok).slice(1, -1)}'`;
}
