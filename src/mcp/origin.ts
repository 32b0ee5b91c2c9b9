/**
 * `svc-auth/mcp`, part 5: where a request to the endpoint was sent (its
 * `Host`, hence the resource URL the 401 and the metadata name) and where it
 * came from (its `Origin`, checked against DNS rebinding as the MCP transport
 * requires). Every function here answers `undefined` or `false` for input it
 * cannot use and never throws: these run on every request, before any
 * credential is read, on headers anyone can send.
 * @module
 */
import { ValidationError, type IssueInput } from '../errors';

/** A host name or IP literal with an optional port: nothing a header value or a URL could be broken out of with. */
const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;
/** What may not appear in a URL that is written, quoted, into `WWW-Authenticate` or echoed in the metadata. */
const UNSAFE = /["\\\s]/;
/** Longest resource URL derived from a request; a longer path is not an endpoint anyone mounted. */
const MAX_RESOURCE = 2048;
/** At most this many allowed origins: a list, not a registry. */
const MAX_ORIGINS = 100;

/**
 * @internal The origin (`http://host:port`) a node request was sent to, from
 * its `Host` header; `undefined` when the header is missing or is not a host
 * a URL can hold (`127.0.0.1:99999`, `256.1.1.1`, `[::::::]`, `a"b`).
 */
export function originOfHost(host: unknown, tls: boolean): string | undefined {
  if (typeof host !== 'string' || !HOST.test(host)) return undefined;
  try {
    // The regex keeps out what breaks a header; only the URL parser knows what is a host (ports, IPv4 parts).
    return new URL(`${tls ? 'https' : 'http'}://${host}`).origin;
  } catch {
    return undefined;
  }
}

/**
 * @internal `origin` + `path` as the resource URL of the endpoint, or
 * `undefined` when the path is not an absolute path (an absolute-form request
 * target, `//evil.example/x` read as a URL) or the result is not a plain
 * http(s) URL on that same origin.
 */
export function resourceAt(origin: string, path: string): string | undefined {
  if (!path.startsWith('/') || origin.length + path.length > MAX_RESOURCE) return undefined;
  try {
    const url = new URL(`${origin}${path}`);
    if (url.origin !== origin || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
    const href = `${url.origin}${url.pathname}`;
    return UNSAFE.test(href) ? undefined : href;
  } catch {
    return undefined;
  }
}

/** The serialized origin of an `Origin` header (or an allow-list entry), or `undefined` when it is not an http(s) origin. */
function parseOrigin(value: string): string | undefined {
  if (value.length > MAX_RESOURCE) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '') return undefined;
    // `new URL('http://a, http://b')` fails, so two Origin headers joined by a proxy never pass.
    return url.origin;
  } catch {
    return undefined;
  }
}

/**
 * A host name no DNS answer can take over: an IP literal, or `localhost`
 * (which browsers resolve to loopback themselves). A rebinding attack always
 * sends the attacker's own DNS name in `Host`, so an origin on such a host
 * cannot be the attacker's.
 */
function rebindingProof(origin: string): boolean {
  try {
    const host = new URL(origin).hostname;
    // After parsing, every IPv4 form (`127.1`, `0x7f.1`) is dotted-quad, and no DNS name can end in a number.
    return host === 'localhost' || host.startsWith('[') || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host);
  } catch {
    return false;
  }
}

/**
 * @internal The `allowedOrigins` option as a set of serialized origins,
 * checked once when the handlers are built.
 *
 * @throws ValidationError for anything but a list of at most 100 http(s) origins (no path, no wildcard).
 */
export function checkAllowedOrigins(value: unknown, path: string): ReadonlySet<string> {
  if (value === undefined) return new Set();
  if (!Array.isArray(value) || value.length > MAX_ORIGINS) {
    throw new ValidationError([{ path, message: `must be an array of at most ${MAX_ORIGINS} origins such as 'https://app.example'` }]);
  }
  const issues: IssueInput[] = [];
  const out = new Set<string>();
  value.forEach((v: unknown, i) => {
    const o = v instanceof URL ? parseOrigin(v.href) : typeof v === 'string' ? parseOrigin(v) : undefined;
    if (o === undefined)
      issues.push({ path: `${path}[${i}]`, message: "must be an http(s) origin such as 'https://app.example' (no path, no wildcard)" });
    else out.add(o);
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return out;
}

/**
 * @internal Whether a request may reach the endpoint, by its `Origin` header.
 * No header: yes (not a browser, so nothing to rebind). Otherwise the origin
 * must be in `allowed`, or be the endpoint's own: the origin of the
 * configured resource, or without one the request's own origin when its host
 * is rebinding-proof (an IP literal or `localhost`). A DNS name taken from
 * `Host` is never trusted as the endpoint's own: in a rebinding attack that
 * name is the attacker's, and the browser sends a matching `Origin`.
 */
export function originAllowed(
  header: unknown,
  requestOrigin: string | undefined,
  fixedOrigin: string | undefined,
  allowed: ReadonlySet<string>,
): boolean {
  if (header === undefined || header === null) return true;
  const o = typeof header === 'string' ? parseOrigin(header) : undefined;
  if (o === undefined) return false;
  if (allowed.has(o)) return true;
  if (fixedOrigin !== undefined) return o === fixedOrigin;
  return requestOrigin !== undefined && o === requestOrigin && rebindingProof(requestOrigin);
}
