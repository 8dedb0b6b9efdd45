/**
 * Calls the server as Zulip's web app does: `/json/` routes with the session cookie, and the CSRF
 * token (from the `csrftoken` cookie) on every request that changes something. The page never
 * holds an API key.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type Params = Record<string, string | number | boolean | object | undefined>;

export function csrfToken(): string {
  const [, token] = /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie) ?? [];
  return token === undefined ? '' : decodeURIComponent(token);
}

function encode(params: Params): URLSearchParams {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    form.set(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return form;
}

export async function call<T = Record<string, unknown>>(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  params: Params = {},
  options: { base?: string; signal?: AbortSignal; body?: FormData } = {},
): Promise<T> {
  const base = options.base ?? '/json';
  const form = encode(params);
  const query = method === 'GET' && form.size ? `?${form}` : '';
  const headers: Record<string, string> = {};
  if (method !== 'GET') headers['X-CSRFToken'] = csrfToken();
  const res = await fetch(`${base}${path}${query}`, {
    method,
    headers,
    body: method === 'GET' ? undefined : (options.body ?? form),
    credentials: 'same-origin',
    signal: options.signal,
  });
  let body: Record<string, unknown>;
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    throw new ApiError(res.status, 'NETWORK', `HTTP ${res.status}`);
  }
  if (!res.ok || body.result !== 'success') {
    throw new ApiError(res.status, String(body.code ?? 'ERROR'), String(body.msg ?? res.status));
  }
  return body as T;
}
