import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ME_QUERY } from './graphql/me';
import { gql, onUnauthenticated, setStoredToken, storedToken, Unauthenticated } from './gql';

/** Whether this browser holds credentials at all: a pasted token, or the session's readable `actor` cookie. */
export function hasCredentials(): boolean {
  return !!storedToken() || /(?:^|;\s*)actor=[^;]/.test(document.cookie);
}

/** Who is signed in (the `me` query); null while unknown or when nobody is. */
export type { Me } from './graphql/me';


export function useMe() {
  const client = useQueryClient();
  const [signedOut, setSignedOut] = useState(false);
  const [known, setKnown] = useState(hasCredentials);
  const query = useQuery({
    queryKey: ['me'],
    enabled: known,
    queryFn: () => gql(ME_QUERY).then((d) => d.me),
    staleTime: 5 * 60_000,
    retry: false,
  });
  useEffect(() => onUnauthenticated(() => setSignedOut(true)), []);
  useEffect(() => {
    if (query.isSuccess) setSignedOut(false);
  }, [query.isSuccess, query.dataUpdatedAt]);
  // Without credentials there is nothing to ask: the sign-in page shows at once (and no 401 is logged).
  const unauthenticated = !known || signedOut || query.error instanceof Unauthenticated;
  return {
    me: unauthenticated ? null : query.data ?? null,
    loading: known && query.isLoading,
    unauthenticated,
    error: query.error && !(query.error instanceof Unauthenticated) ? query.error : null,
    refresh: async () => {
      setSignedOut(false);
      setKnown(hasCredentials());
      client.clear();
      await client.invalidateQueries();
    },
  };
}

/** POST /logIn (the session cookies), as DataHub's web app signs in. */
export async function logIn(username: string, password: string): Promise<void> {
  const res = await fetch('/logIn', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    credentials: 'same-origin',
    body: JSON.stringify({ username, password }),
  });
  if (res.ok) return;
  let message = `Sign-in failed (HTTP ${res.status})`;
  try {
    const body = (await res.json()) as { message?: string };
    if (body.message) message = body.message;
  } catch {
    // keep the status line
  }
  throw new Error(message);
}

/**
 * Forgets a pasted token and ends the cookie session: GET /logOut clears the cookies and sends the browser to /login,
 * which is this UI's sign-in page (or, beside DataHub's web app, that app's).
 */
export function logOut() {
  setStoredToken(null);
  window.location.assign('/logOut');
}
