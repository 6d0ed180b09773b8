/**
 * The UI's one way to the API: `gql(document, variables)` POSTs to /api/graphql and returns `data`, typed by the
 * document (TypedDocument). Credentials: the session cookies set by POST /logIn (sent by the browser), or a pasted
 * access token kept in localStorage and sent as `Authorization: Bearer`. A 401 raises `Unauthenticated`, which the
 * shell turns into the sign-in page; GraphQL errors raise `GqlError` with the server's messages.
 */
export const TOKEN_KEY = 'almanac.token';

export function storedToken(): string | null {
  try {
    return window.localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setStoredToken(token: string | null) {
  if (token) window.localStorage.setItem(TOKEN_KEY, token);
  else window.localStorage.removeItem(TOKEN_KEY);
}

export class Unauthenticated extends Error {
  constructor(message = 'Not signed in') {
    super(message);
    this.name = 'Unauthenticated';
  }
}

export interface GqlErrorItem {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string | number; type?: string; [k: string]: unknown };
}

export class GqlError extends Error {
  constructor(readonly errors: GqlErrorItem[], readonly status: number) {
    super(errors.map((e) => e.message).join('; ') || `HTTP ${status}`);
    this.name = 'GqlError';
  }
}

/** Listeners told when a request was refused for want of credentials (the shell shows the sign-in page). */
const unauthListeners = new Set<() => void>();
export function onUnauthenticated(listener: () => void): () => void {
  unauthListeners.add(listener);
  return () => unauthListeners.delete(listener);
}

const operationName = (doc: string) => /\b(?:query|mutation)\s+(\w+)/.exec(doc)?.[1];

declare const answers: unique symbol;
/**
 * A GraphQL document that carries the type of its answer's `data` and of its variables: `gql(doc, variables)` checks
 * the variables and types the answer, with nothing written at the call. Made by `typed` beside the document
 * (ui/src/graphql/); at run time it is the document's text, nothing more.
 */
export type TypedDocument<Result, Variables = Record<string, never>> = string & {
  readonly [answers]: { result: Result; variables: Variables };
};

export const typed = <Result, Variables = Record<string, never>>(document: string) => document as TypedDocument<Result, Variables>;

export async function gql<T, V>(document: TypedDocument<T, V>, variables?: NoInfer<V>,
  opts: { signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  const token = storedToken();
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch('/api/graphql', {
    method: 'POST',
    headers,
    credentials: 'same-origin',
    body: JSON.stringify({ query: document, variables: variables ?? {}, operationName: operationName(document) }),
    signal: opts.signal,
  });
  if (res.status === 401) {
    unauthListeners.forEach((l) => l());
    throw new Unauthenticated();
  }
  let body: { data?: T; errors?: GqlErrorItem[] };
  try {
    body = await res.json();
  } catch {
    throw new GqlError([{ message: `The server answered ${res.status} without JSON` }], res.status);
  }
  if (body.errors?.length) {
    if (body.errors.some((e) => e.extensions?.code === 401 || e.extensions?.type === 'UNAUTHENTICATED')) {
      unauthListeners.forEach((l) => l());
      throw new Unauthenticated(body.errors[0]!.message);
    }
    throw new GqlError(body.errors, res.status);
  }
  if (!res.ok || body.data === undefined) throw new GqlError([{ message: `HTTP ${res.status}` }], res.status);
  return body.data;
}
