// The admin API as the console calls it: HTTP BASIC on every request, credentials kept for this
// browser tab only (sessionStorage), errors turned into ApiError with the problem+json details.

const BASE = new URL('api/v1/', document.baseURI);
const KEY = 'outbox.console.credentials';

export class ApiError extends Error {
  constructor(status, problem) {
    const detail = problem && (problem.detail || problem.title);
    super(detail ? `${status} ${problem.title || ''}: ${detail}` : `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
  }
}

function encode(user, password) {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let text = '';
  bytes.forEach(b => { text += String.fromCharCode(b); });
  return btoa(text);
}

export function signedIn() {
  const saved = sessionStorage.getItem(KEY);
  return saved ? JSON.parse(saved) : null;
}

export function signOut() {
  sessionStorage.removeItem(KEY);
}

/** Checks the credentials against an admin-only call; keeps them only when they work. */
export async function signIn(user, password) {
  const token = encode(user, password);
  await request('GET', 'admin/stats', undefined, token);
  sessionStorage.setItem(KEY, JSON.stringify({ user, token }));
}

async function request(method, path, body, token) {
  // X-Requested-By: the server refuses a POST without a JSON body unless it carries it (no cross-site form can)
  const headers = { Accept: 'application/json, application/problem+json', 'X-Requested-By': 'trigger-outbox-console' };
  const auth = token || (signedIn() || {}).token;
  if (auth) {
    headers.Authorization = `Basic ${auth}`;
  }
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
  }
  let response;
  try {
    // credentials 'omit': the browser never pops its own sign-in dialog on a 401
    response = await fetch(new URL(path, BASE), {
      method, headers, credentials: 'omit', cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, { title: 'Server unreachable', detail: e.message });
  }
  const text = await response.text();
  let json = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch (e) {
      json = { title: 'Unexpected answer', detail: text.slice(0, 200) };
    }
  }
  if (!response.ok) {
    throw new ApiError(response.status, json);
  }
  return json;
}

export const api = {
  get: (path) => request('GET', path),
  post: (path, body) => request('POST', path, body),
  put: (path, body) => request('PUT', path, body),
  del: (path) => request('DELETE', path),
};

/** Builds a query string from the given values, leaving out empty ones. */
export function query(values) {
  const q = new URLSearchParams();
  Object.entries(values).forEach(([k, v]) => {
    if (v !== undefined && v !== null && v !== '') {
      q.set(k, v);
    }
  });
  const s = q.toString();
  return s ? `?${s}` : '';
}
