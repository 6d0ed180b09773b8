// The Almanac GraphQL explorer: mounts GraphiQL (React 18 and graphiql's browser builds, loaded before this file
// by graphiql.html) with a fetcher that sends the access token typed above the editor as a Bearer header, or, with
// no token, the session cookies of a user signed in to Almanac's UI (same-origin requests, as the UI's own).
// Plain browser script, no inline code anywhere, so the page runs under a strict Content-Security-Policy.
(function () {
  'use strict';

  var TOKEN_KEY = 'almanac.token';
  // Relative to /api/graphiql, so the explorer keeps working behind a reverse proxy that adds a path prefix.
  var ENDPOINT = new URL('graphql', document.baseURI).toString();
  var EXAMPLE_QUERY = [
    '# Welcome to the Almanac GraphQL explorer.',
    '# Signed in to Almanac\'s UI, your session is used; otherwise paste an access token above.',
    '# Then press ▶ (Ctrl-Enter).',
    '',
    'query getDataset {',
    '  dataset(urn: "urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_created,PROD)") {',
    '    urn',
    '    properties {',
    '      name',
    '      description',
    '    }',
    '    schemaMetadata {',
    '      fields {',
    '        fieldPath',
    '        description',
    '      }',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');

  var form = document.getElementById('token-form');
  var input = document.getElementById('token');
  var container = document.getElementById('graphiql');
  var hint = document.getElementById('token-hint');
  var tokenHint = Array.prototype.slice.call(hint.childNodes);

  /** The user of the UI's session: its readable `actor` cookie (the session itself is HttpOnly), or ''. */
  function sessionActor() {
    var m = /(?:^|;\s*)actor=([^;]*)/.exec(document.cookie);
    if (!m) return '';
    try {
      return decodeURIComponent(m[1]);
    } catch (e) {
      return m[1];
    }
  }

  /** Says whose credentials the next request carries. */
  function showCredentials() {
    var actor = sessionActor();
    if (!currentToken() && actor) hint.textContent = 'Signed in as ' + actor + ': queries use your session. A token pasted here is used instead.';
    else hint.replaceChildren.apply(hint, tokenHint);
  }

  function loadToken() {
    try {
      return window.localStorage.getItem(TOKEN_KEY) || '';
    } catch (e) {
      return ''; // storage disabled: the token then lives only in the field
    }
  }

  function saveToken(token) {
    try {
      if (token) window.localStorage.setItem(TOKEN_KEY, token);
      else window.localStorage.removeItem(TOKEN_KEY);
    } catch (e) {
      /* storage disabled */
    }
  }

  function currentToken() {
    return input.value.trim();
  }

  /** Turns whatever the server sent into something GraphiQL can show: a GraphQL response. */
  function asGraphQLResponse(status, text) {
    var body;
    try {
      body = JSON.parse(text);
    } catch (e) {
      return { errors: [{ message: 'HTTP ' + status + ': ' + (text || 'empty response') }] };
    }
    if (body && typeof body === 'object' && ('data' in body || 'errors' in body)) return body;
    // A REST-style refusal (401 without a valid token, 413…): {status, code, message}.
    var message = body && typeof body.message === 'string' ? body.message : 'HTTP ' + status;
    return { errors: [{ message: message, extensions: { status: status, code: body && body.code } }] };
  }

  async function fetcher(params, opts) {
    var token = currentToken();
    if (!token && !sessionActor() && params && params.operationName === 'IntrospectionQuery') {
      // Every GraphQL call needs credentials; do not send a request that can only be refused.
      return { errors: [{ message: 'Paste an access token above (or sign in to Almanac\'s UI) to load the schema.' }] };
    }
    var headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (token) headers.authorization = 'Bearer ' + token;
    // Headers typed into GraphiQL's own headers editor win over the token field.
    var extra = (opts && opts.headers) || {};
    Object.keys(extra).forEach(function (name) {
      headers[name.toLowerCase()] = String(extra[name]);
    });
    var response = await fetch(ENDPOINT, {
      method: 'POST',
      headers: headers,
      body: JSON.stringify(params),
      // The session cookies go with it when there are any (same origin only); a Bearer token, when given, wins.
      credentials: 'same-origin',
      cache: 'no-store',
    });
    return asGraphQLResponse(response.status, await response.text());
  }

  var root = ReactDOM.createRoot(container);
  var generation = 0;

  // Mounting anew (a new key) makes GraphiQL fetch the schema again with the current token; the editors keep their
  // content, which GraphiQL keeps in local storage.
  function render() {
    generation += 1;
    root.render(
      React.createElement(
        GraphiQL,
        {
          key: generation,
          fetcher: fetcher,
          defaultQuery: EXAMPLE_QUERY,
          defaultEditorToolsVisibility: false,
          shouldPersistHeaders: false,
        },
        React.createElement(GraphiQL.Logo, null, 'Almanac'),
      ),
    );
  }

  input.value = loadToken();
  var applied = currentToken();

  // Saved as it is typed, so a query run straight away uses it.
  input.addEventListener('input', function () {
    saveToken(currentToken());
    showCredentials();
  });

  // "Use token" (or Enter) reloads the schema with the new token.
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var token = currentToken();
    saveToken(token);
    if (token !== applied) {
      applied = token;
      render();
    }
  });

  showCredentials();
  render();
})();
