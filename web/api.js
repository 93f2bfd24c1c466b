// Calls to the server's JSON API. Authentication is the HttpOnly cookie the login link set: the
// page never sees or stores a token.

export class ApiError extends Error {
  constructor(status, code, message, field) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

async function parse(response) {
  const type = response.headers.get('content-type') || '';
  if (!response.ok) {
    let code = '', message = '', field;
    if (type.includes('json')) {
      const body = await response.json().catch(() => ({}));
      code = body?.error?.code ?? '';
      message = body?.error?.message ?? '';
      field = body?.error?.field;
    }
    throw new ApiError(response.status, code, message || `${response.status} ${code || response.statusText}`, field);
  }
  if (response.status === 204) return null;
  return type.includes('json') ? response.json() : response.text();
}

export async function get(path, params) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(params ?? {})) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, v);
  }
  const response = await fetch(url, {credentials: 'same-origin', headers: {Accept: 'application/json'}});
  return parse(response);
}

export async function getText(path) {
  const response = await fetch(path, {credentials: 'same-origin'});
  return parse(response);
}

// A key per user action: a retried request (the same action) is answered once by the server.
export function idempotencyKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export async function post(path, body, key = idempotencyKey()) {
  const response = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: {'Content-Type': 'application/json', Accept: 'application/json', 'Idempotency-Key': key},
    body: JSON.stringify(body ?? {}),
  });
  return parse(response);
}
