/**
 * Shared set-up of the authorization server tests: a real node:http server on
 * loopback mounting the server, a fetch-based "browser" that keeps cookies and
 * follows redirects one at a time, and the steps of the code flow: `register` a
 * client, `authorize` (the URL, with PKCE), `approve` (sign in and consent as a
 * person, in a browser), `redeem` (the code at the token endpoint); `codeFlow`
 * runs them all.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Auth } from '../../src/service';
import { MemoryTokenStore } from '../../src/stores';
import {
  createAuthorizationServer,
  MemoryOAuthStorage,
  type AuthorizationServer,
  type AuthorizationServerOptions,
  type OAuthStorage,
} from '../../src/entries/oauth';
import { systemTime, testAuth } from './auth';

export interface Running {
  base: string;
  auth: Auth;
  /** The token store of `auth`, where the server records its grants and access tokens. */
  tokens: MemoryTokenStore;
  oauth: AuthorizationServer;
  storage: OAuthStorage;
  logs: string[];
  close(): Promise<void>;
}

/** Listen on a free loopback port first: the issuer is the base URL. */
export async function listen(
  handler?: (req: IncomingMessage, res: ServerResponse) => void,
  port = 0,
): Promise<{ server: Server; base: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** An AS on loopback with alice and bob as members (memory storage unless given). */
export async function startServer(
  extra: Partial<AuthorizationServerOptions> = {},
  port = 0,
  extraTokens?: MemoryTokenStore,
): Promise<Running> {
  const { server, base } = await listen(undefined, port);
  const tokens = extraTokens ?? new MemoryTokenStore();
  const auth = extra.auth ?? (await testAuth({ issuer: 'svc-test', tokens, now: systemTime })).auth;
  const storage = extra.storage ?? new MemoryOAuthStorage();
  const logs: string[] = [];
  const oauth = await createAuthorizationServer({
    auth,
    issuer: base,
    signIn: { users: () => ['alice', 'bob'] },
    storage,
    log: (l) => logs.push(l),
    // Every test registers from 127.0.0.1: the per-address limit has its own test (registration-flood).
    clients: { registrationsPerHour: 100_000 },
    ...extra,
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void oauth.handle(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end('not here');
    });
  });
  return {
    base,
    auth,
    tokens,
    oauth,
    storage,
    logs,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A browser: cookies per name, redirects followed by hand. */
export class Browser {
  readonly jar = new Map<string, string>();

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size > 0) headers.set('cookie', [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(c) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return res;
  }

  /** GET `url`, following redirects while they stay on `origin`; the last response and its URL. */
  async walk(url: string, origin: string): Promise<{ res: Response; url: string }> {
    let at = url;
    for (let i = 0; i < 20; i++) {
      const res = await this.request(at);
      const loc = res.headers.get('location');
      if (loc === null || res.status < 300 || res.status >= 400) return { res, url: at };
      at = new URL(loc, at).href;
      if (!at.startsWith(origin)) return { res, url: at };
    }
    throw new Error('too many redirects');
  }

  /** POST a form as the page would (Origin of the page), then follow redirects on `origin`. */
  async submit(
    action: string,
    fields: Record<string, string>,
    origin: string,
    headers: Record<string, string> = {},
  ): Promise<{ res: Response; url: string }> {
    const res = await this.request(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin, ...headers },
      body: new URLSearchParams(fields).toString(),
    });
    const loc = res.headers.get('location');
    if (loc === null) return { res, url: action };
    const next = new URL(loc, action).href;
    return next.startsWith(origin) ? this.walk(next, origin) : { res, url: next };
  }
}

/** The post form of a page: its action and what a browser would send (hidden and filled-in fields, ticked checkboxes). */
export function formOf(html: string, base: string): { action: string; hidden: Record<string, string> } {
  const m = /<form[^>]* method="post" action="([^"]+)"[^>]*>/.exec(html);
  if (m === null) throw new Error(`no form in page: ${html.slice(0, 300)}`);
  const hidden: Record<string, string> = {};
  for (const h of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/?>/g))
    hidden[h[1] as string] = (h[2] as string).replaceAll('&amp;', '&');
  // What a browser sends too: a text field filled in by the page (the device code of a link) and
  // each ticked checkbox (the consent page's permissions).
  for (const t of html.matchAll(/<input type="text"[^>]* name="([^"]+)"[^>]* value="([^"]*)"[^>]*>/g))
    hidden[t[1] as string] = (t[2] as string).replaceAll('&amp;', '&');
  for (const c of html.matchAll(/<input type="checkbox"[^>]* name="([^"]+)" value="([^"]*)"[^>]*? checked>/g))
    hidden[c[1] as string] = c[2] as string;
  return { action: new URL((m[1] as string).replaceAll('&amp;', '&'), base).href, hidden };
}

export interface Pkce {
  verifier: string;
  challenge: string;
}
export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const REDIRECT = 'http://127.0.0.1:9/callback';

/** Register a public client by DCR. */
export async function register(
  base: string,
  extra: Record<string, unknown> = {},
): Promise<{ client_id: string } & Record<string, unknown>> {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test Client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...extra }),
  });
  const body = (await res.json()) as { client_id: string } & Record<string, unknown>;
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** An authorize URL with exactly `params` (those given as `undefined` left out); {@link authorize} builds a well-formed one. */
export function authorizeUrl(base: string, params: Record<string, string | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) p.set(k, v);
  return `${base}/oauth/authorize?${p.toString()}`;
}

/** Sign in as `user` and decide on the consent page; the URL the browser was sent to at the end. */
export async function signInAndConsent(
  browser: Browser,
  base: string,
  url: string,
  { user = 'alice', decision = 'approve' }: { user?: string; decision?: 'approve' | 'deny' } = {},
): Promise<{ url: string; consentHtml?: string }> {
  let step = await browser.walk(url, base);
  if (!step.url.startsWith(base)) return { url: step.url };
  let html = await step.res.text();
  if (html.includes('name="user"')) {
    const form = formOf(html, base);
    step = await browser.submit(form.action, { ...form.hidden, user }, base);
    if (!step.url.startsWith(base)) return { url: step.url };
    html = await step.res.text();
  }
  const form = formOf(html, base);
  const done = await browser.submit(form.action, { ...form.hidden, decision }, base);
  return { url: done.url, consentHtml: html };
}

/** An authorization request as a client starts it (PKCE S256): its URL, and what redeeming its code needs. */
export interface AuthorizeRequest {
  base: string;
  url: string;
  clientId: string;
  verifier: string;
  redirectUri: string;
  resource: string | undefined;
}

export interface AuthorizeOptions {
  /** Default `repo:read`. */
  scope?: string;
  /** Default `<base>/mcp`; `undefined` leaves the parameter out. */
  resource?: string | undefined;
  /** Default `st-1`; `undefined` leaves the parameter out. */
  state?: string | undefined;
  /** Default {@link REDIRECT}. */
  redirectUri?: string;
  /** More parameters, or (as `undefined`) ones left out: `{ code_challenge: undefined }` for a request without PKCE. */
  params?: Record<string, string | undefined>;
}

/** Step 1 of the code flow: the authorize URL of `clientId`, with a fresh PKCE pair. */
export function authorize(base: string, clientId: string, options: AuthorizeOptions = {}): AuthorizeRequest {
  const { verifier, challenge } = pkce();
  const resource = 'resource' in options ? options.resource : `${base}/mcp`;
  const redirectUri = options.redirectUri ?? REDIRECT;
  const url = authorizeUrl(base, {
    client_id: clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: options.scope ?? 'repo:read',
    state: 'state' in options ? options.state : 'st-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource,
    ...options.params,
  });
  return { base, url, clientId, verifier, redirectUri, resource };
}

/**
 * Step 2: open the request in `browser`, sign in as `user` when asked and decide on the consent page.
 * The code the client got back (null when none), the URL the browser ended on, and the consent page.
 */
export async function approve(
  request: AuthorizeRequest,
  {
    browser = new Browser(),
    user = 'alice',
    decision = 'approve',
  }: { browser?: Browser; user?: string; decision?: 'approve' | 'deny' } = {},
): Promise<{ code: string | null; url: string; consentHtml?: string }> {
  const done = await signInAndConsent(browser, request.base, request.url, { user, decision });
  return { ...done, code: done.url.startsWith(request.base) ? null : new URL(done.url).searchParams.get('code') };
}

/**
 * Step 3: redeem `code` at the token endpoint with the request's verifier, client, redirect URI and
 * resource. `fields` adds form fields or (as `undefined`) leaves some out; `headers` adds headers (DPoP, Basic).
 */
export function redeem(
  request: AuthorizeRequest,
  code: string,
  fields: Record<string, string | undefined> = {},
  headers: Record<string, string> = {},
): ReturnType<typeof token> {
  return token(
    request.base,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: request.redirectUri,
      client_id: request.clientId,
      code_verifier: request.verifier,
      resource: request.resource,
      ...fields,
    },
    headers,
  );
}

/** The whole code flow for a fresh DCR client (or `clientId`): tokens for `resource` with `scope`. */
export async function codeFlow(
  base: string,
  {
    scope = 'repo:read',
    resource = `${base}/mcp`,
    user = 'alice',
    browser = new Browser(),
    clientId,
  }: { scope?: string; resource?: string; user?: string; browser?: Browser; clientId?: string } = {},
): Promise<{ clientId: string; tokens: Record<string, unknown>; browser: Browser }> {
  const request = authorize(base, clientId ?? (await register(base)).client_id, { scope, resource });
  const { code, url } = await approve(request, { browser, user });
  if (code === null) throw new Error(`no code: ${url}`);
  const tokens = await redeem(request, code);
  if (tokens.status !== 200) throw new Error(`token failed: ${JSON.stringify(tokens.body)}`);
  return { clientId: request.clientId, tokens: tokens.body, browser };
}

/** POST the token endpoint (a field given as `undefined` is left out). */
export async function token(
  base: string,
  fields: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) form.set(k, v);
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: form.toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}
