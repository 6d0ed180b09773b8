import { useState, type FormEvent } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { gql } from '../../gql';
import { ADMIN_ME, CREATE_TOKEN, LIST_TOKENS, REVOKE_TOKEN } from '../../graphql/admin';
import { useTitle } from '../../router';
import { AdminNav, fmtTime, urnId } from './AdminNav';
import { Pager } from '../../components/Pager';

/**
 * /admin/tokens: personal access tokens. Everyone lists, creates and revokes their own (GENERATE_PERSONAL_ACCESS_TOKENS
 * to create); holders of MANAGE_ACCESS_TOKENS see everyone's and may create one for another user. A new token is shown
 * once, here, and never again.
 */

const DURATIONS: [string, string][] = [
  ['ONE_HOUR', '1 hour'], ['ONE_DAY', '1 day'], ['ONE_WEEK', '1 week'], ['ONE_MONTH', '1 month'], ['THREE_MONTHS', '3 months'],
  ['SIX_MONTHS', '6 months'], ['ONE_YEAR', '1 year'], ['NO_EXPIRY', 'Never (if the server allows it)'],
];
const PAGE = 50;

export default function TokensPage() {
  useTitle('Access tokens');
  const client = useQueryClient();
  const me = useQuery({ queryKey: ['admin-me'], queryFn: () => gql(ADMIN_ME), staleTime: 60_000 });
  const [everyone, setEveryone] = useState(false);
  const [start, setStart] = useState(0);
  const myUrn = me.data?.me.corpUser.urn;
  const canManage = !!me.data?.me.platformPrivileges?.manageTokens;
  const list = useQuery({
    queryKey: ['tokens', everyone, start, myUrn],
    enabled: !!myUrn,
    queryFn: ({ signal }) => gql(LIST_TOKENS, {
      input: { start, count: PAGE, filters: everyone ? [] : [{ field: 'ownerUrn', values: [myUrn!] }] },
    }, { signal }),
    placeholderData: keepPreviousData,
  });
  const [created, setCreated] = useState<{ token: string; name: string } | null>(null);
  const create = useMutation({
    mutationFn: (input: Record<string, unknown>) => gql(CREATE_TOKEN, { input }),
    onSuccess: (d) => {
      setCreated({ token: d.createAccessToken.accessToken, name: d.createAccessToken.metadata.name });
      void client.invalidateQueries({ queryKey: ['tokens'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (tokenId: string) => gql(REVOKE_TOKEN, { tokenId }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['tokens'] }),
  });
  const [confirming, setConfirming] = useState<string | null>(null);

  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [duration, setDuration] = useState('ONE_MONTH');
  const [forUser, setForUser] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!myUrn || !name.trim()) return;
    const actor = forUser.trim() ? (forUser.trim().startsWith('urn:li:corpuser:') ? forUser.trim() : `urn:li:corpuser:${forUser.trim()}`) : myUrn;
    setCreated(null);
    create.mutate({ type: 'PERSONAL', actorUrn: actor, duration, name: name.trim(), description: description.trim() || undefined });
  };

  const tokens = list.data?.listAccessTokens;
  return (
    <div className="admin-page">
      <h1>Administration</h1>
      <AdminNav />
      <section className="card" aria-labelledby="new-token-heading">
        <h2 id="new-token-heading">New access token</h2>
        <form className="admin-form" onSubmit={submit}>
          <div>
            <label htmlFor="token-name">Name</label>
            <input id="token-name" required value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />
          </div>
          <div>
            <label htmlFor="token-description">Description</label>
            <input id="token-description" value={description} onChange={(e) => setDescription(e.target.value)} autoComplete="off" />
          </div>
          <div>
            <label htmlFor="token-duration">Expires after</label>
            <select id="token-duration" value={duration} onChange={(e) => setDuration(e.target.value)}>
              {DURATIONS.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
            </select>
          </div>
          {canManage && (
            <div>
              <label htmlFor="token-user">For user (default: you)</label>
              <input id="token-user" placeholder={me.data ? me.data.me.corpUser.username : ''} value={forUser}
                onChange={(e) => setForUser(e.target.value)} autoComplete="off" />
            </div>
          )}
          <div className="actions">
            <button type="submit" className="btn primary" disabled={create.isPending || !name.trim()}>Create token</button>
          </div>
        </form>
        {create.error && <p className="error" role="alert">{(create.error as Error).message}</p>}
        {created && <NewToken token={created.token} name={created.name} onDone={() => setCreated(null)} />}
      </section>

      <section aria-labelledby="tokens-heading">
        <div className="admin-toolbar">
          <h2 id="tokens-heading">{everyone ? 'Every token' : 'Your tokens'}{tokens ? ` (${tokens.total})` : ''}</h2>
          {canManage && (
            <span className="seg" role="group" aria-label="Whose tokens">
              <button type="button" className="btn small" aria-pressed={!everyone} onClick={() => { setEveryone(false); setStart(0); }}>Yours</button>
              <button type="button" className="btn small" aria-pressed={everyone} onClick={() => { setEveryone(true); setStart(0); }}>Everyone's</button>
            </span>
          )}
        </div>
        {(list.error || me.error) && <p className="error" role="alert">{((list.error ?? me.error) as Error).message}</p>}
        {revoke.error && <p className="error" role="alert">{(revoke.error as Error).message}</p>}
        {list.isPending ? <p className="muted" role="status">Loading…</p> : tokens && tokens.tokens.length === 0 ? <p className="muted">No token.</p> : tokens && (
          <table data-testid="tokens-table">
            <thead>
              <tr><th scope="col">Name</th><th scope="col">Description</th><th scope="col">User</th><th scope="col">Created (UTC)</th>
                <th scope="col">Expires (UTC)</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr>
            </thead>
            <tbody>
              {tokens.tokens.map((t) => (
                <tr key={t.id} data-token-id={t.id}>
                  <td>{t.name}</td>
                  <td>{t.description ?? ''}</td>
                  <td title={t.actorUrn}>{urnId(t.actorUrn)}</td>
                  <td>{fmtTime(t.createdAt)}</td>
                  <td>{t.expiresAt ? fmtTime(t.expiresAt) : 'never'}</td>
                  <td>
                    {confirming === t.id ? (
                      <span className="pills">
                        <button type="button" className="btn small primary" disabled={revoke.isPending}
                          onClick={() => revoke.mutate(t.id, { onSettled: () => setConfirming(null) })}>Confirm revoke</button>
                        <button type="button" className="btn small" onClick={() => setConfirming(null)}>Cancel</button>
                      </span>
                    ) : (
                      <button type="button" className="btn small" aria-label={`Revoke token ${t.name}`} onClick={() => setConfirming(t.id)}>Revoke</button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {tokens && tokens.total > PAGE && (
          <Pager start={start} size={PAGE} total={tokens.total} onPage={setStart} />
        )}
      </section>
    </div>
  );
}

/** The token just created, shown once, with a copy button. */
function NewToken({ token, name, onDone }: { token: string; name: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="new-token warn" role="status">
      <p><strong>Token “{name}” created.</strong> Copy it now: it is not shown again.</p>
      <label htmlFor="new-token-value" className="visually-hidden">The new token</label>
      <div className="row">
        <input id="new-token-value" readOnly value={token} onFocus={(e) => e.target.select()} data-testid="new-token" />
        <button type="button" className="btn small" onClick={() => {
          void navigator.clipboard?.writeText(token).then(() => setCopied(true), () => setCopied(false));
        }}>{copied ? 'Copied' : 'Copy'}</button>
        <button type="button" className="btn small" onClick={onDone}>Done</button>
      </div>
    </div>
  );
}
