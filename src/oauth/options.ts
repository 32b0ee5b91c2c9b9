/**
 * Validation of {@link AuthorizationServerOptions}, once, when the server is
 * built: every problem is collected and thrown together (`ValidationError`).
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { ValidationError, type IssueInput } from '../errors';
import { checkOptions, isPlainObject } from '../core/vocabulary';
import { isAuth, type Auth } from '../service';
import { serviceUrl } from '../core/network';
import { guardOnError } from '../http';
import type { DocumentPolicy } from './cimd';
import { checkLook, type Look } from './pages';
import type { OAuthStorage } from './storage';
import type { AuthorizationServerOptions } from './types';

/** @internal Sign-in, resolved. */
export type ResolvedSignIn =
  | { readonly kind: 'pick'; readonly users: () => readonly string[] | Promise<readonly string[]> }
  | {
      readonly kind: 'own';
      readonly currentUser: (req: IncomingMessage) => string | undefined | Promise<string | undefined>;
      readonly loginUrl: (returnTo: string) => string;
    };

/** @internal The options with every default filled in. */
export interface ResolvedOptions {
  readonly auth: Auth;
  readonly issuer: string;
  readonly signIn: ResolvedSignIn;
  readonly storage: OAuthStorage;
  readonly registration: boolean;
  /** Registrations one client address may make in an hour. */
  readonly registrationsPerHour: number;
  /** Sign-ins (`/authorize`, device authorization) one client address may start in a minute. */
  readonly authorizationsPerMinute: number;
  /** Seconds a registered client is kept while no grant is made for it. */
  readonly unusedClientTtlSec: number;
  /** The first-party `svc-cli` client is registered (its tokens carry no scope). */
  readonly cli: boolean;
  /** `undefined` when metadata documents are off. */
  readonly documents: DocumentPolicy | undefined;
  readonly resources: readonly string[];
  readonly accessTokenTtlSec: number;
  readonly refreshTokenTtlSec: number;
  readonly devicePollIntervalSec: number;
  readonly name: string;
  /** How the pages look: `name`, and the `pages` option. */
  readonly look: Look;
  readonly prefix: string;
  readonly trustProxy: boolean;
  readonly log: (line: string) => void;
}

const KNOWN = [
  'auth',
  'issuer',
  'signIn',
  'storage',
  'clients',
  'resources',
  'accessTokenTtlSec',
  'refreshTokenTtlSec',
  'devicePollIntervalSec',
  'name',
  'pages',
  'pathPrefix',
  'trustProxy',
  'log',
];
const STORAGE_METHODS = ['set', 'get', 'findByUserCode', 'findByUid', 'consume', 'destroy', 'revokeByGrantId', 'initSecrets'];

const isInt = (v: unknown, min: number, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const hasMethods = (v: unknown, names: readonly string[]): boolean =>
  typeof v === 'object' && v !== null && names.every((n) => typeof (v as Record<string, unknown>)[n] === 'function');

/** `issuer` must be a service URL (the one rule) and an origin: the metadata paths then sit at the root, where clients look for them. */
function checkIssuer(value: unknown, issues: IssueInput[]): string {
  const url = serviceUrl(value);
  if (typeof url === 'string') {
    issues.push({ path: 'issuer', message: url });
    return '';
  }
  if (url.origin !== value) {
    issues.push({ path: 'issuer', message: 'must be an origin such as https://svc.example (no path, no trailing slash)' });
    return '';
  }
  return url.origin;
}

function checkResources(value: unknown, issuer: string, issues: IssueInput[]): string[] {
  if (value === undefined) return issuer === '' ? [] : [`${issuer}/mcp`, issuer];
  if (!Array.isArray(value) || value.length === 0 || value.length > 16) {
    issues.push({ path: 'resources', message: 'must be a list of 1 to 16 URLs' });
    return [];
  }
  const out: string[] = [];
  value.forEach((r: unknown, i) => {
    const url = typeof r === 'string' ? URL.parse(r) : null;
    const plain = url === null ? '' : url.pathname === '/' ? url.origin : `${url.origin}${url.pathname.replace(/\/$/, '')}`;
    if (url === null || url.search !== '' || url.hash !== '' || url.username !== '' || (issuer !== '' && url.origin !== issuer)) {
      issues.push({ path: ['resources', i], message: "must be an absolute URL on the issuer's origin, without query or fragment" });
    } else if (out.includes(plain)) {
      issues.push({ code: 'duplicate', path: ['resources', i], message: 'is listed twice' });
    } else out.push(plain);
  });
  return out;
}

function checkSignIn(value: unknown, issues: IssueInput[]): ResolvedSignIn {
  const v = isPlainObject(value) ? value : undefined;
  if (v !== undefined && typeof v.users === 'function' && v.currentUser === undefined) {
    checkOptions(v, ['users'], 'signIn', issues);
    return { kind: 'pick', users: v.users as () => readonly string[] };
  }
  if (v !== undefined && typeof v.currentUser === 'function' && typeof v.loginUrl === 'function') {
    checkOptions(v, ['currentUser', 'loginUrl'], 'signIn', issues);
    return { kind: 'own', currentUser: v.currentUser as () => string | undefined, loginUrl: v.loginUrl as (r: string) => string };
  }
  issues.push({ path: 'signIn', message: 'expected { users() } (pick a user: dev only) or { currentUser(req), loginUrl(returnTo) }' });
  return { kind: 'pick', users: () => [] };
}

function checkDocuments(value: unknown, issues: IssueInput[]): DocumentPolicy | undefined {
  if (value === false) return undefined;
  const v = value === undefined || value === true ? {} : isPlainObject(value) ? value : undefined;
  if (v === undefined) {
    issues.push({
      path: ['clients', 'metadataDocuments'],
      message: 'must be true, false or { allow?, allowLoopback?, maxBytes?, timeoutMs? }',
    });
    return undefined;
  }
  const path = 'clients.metadataDocuments';
  checkOptions(v, ['allow', 'allowLoopback', 'maxBytes', 'timeoutMs'], path, issues);
  let allow: (url: URL) => boolean = () => true;
  if (typeof v.allow === 'function') allow = v.allow as (url: URL) => boolean;
  else if (Array.isArray(v.allow)) {
    const origins = new Set<string>();
    (v.allow as unknown[]).forEach((o, i) => {
      if (typeof o === 'string' && URL.parse(o)?.origin === o) origins.add(o);
      else issues.push({ path: [path, 'allow', i], message: 'must be an origin such as https://vscode.dev' });
    });
    allow = (url) => origins.has(url.origin);
  } else if (v.allow !== undefined) issues.push({ path: `${path}.allow`, message: 'must be a list of origins or a function of the URL' });
  if (v.allowLoopback !== undefined && typeof v.allowLoopback !== 'boolean')
    issues.push({ path: `${path}.allowLoopback`, message: 'must be a boolean' });
  if (v.maxBytes !== undefined && !isInt(v.maxBytes, 256, 65_536))
    issues.push({ path: `${path}.maxBytes`, message: 'must be an integer from 256 to 65 536' });
  if (v.timeoutMs !== undefined && !isInt(v.timeoutMs, 100, 10_000))
    issues.push({ path: `${path}.timeoutMs`, message: 'must be an integer from 100 to 10 000' });
  return {
    allow: (url) => {
      try {
        return allow(url) === true;
      } catch {
        return false; // a throwing allow rule allows nothing
      }
    },
    allowLoopback: v.allowLoopback === true,
    maxBytes: typeof v.maxBytes === 'number' ? v.maxBytes : 5_120,
    timeoutMs: typeof v.timeoutMs === 'number' ? v.timeoutMs : 2_500,
    cacheMinSec: 60,
    cacheMaxSec: 86_400,
    failureCacheSec: 60,
    now: () => Date.now(),
  };
}

/** @internal Check `options` (every problem at once) and fill in the defaults. */
export function resolveOptions(options: AuthorizationServerOptions): ResolvedOptions {
  if (!isPlainObject(options)) throw new ValidationError([{ path: 'options', message: 'expected an options object' }]);
  const o = options as unknown as Record<string, unknown>;
  const issues: IssueInput[] = [];
  checkOptions(o, KNOWN, '', issues);
  // The server writes its grants' session records through the Auth (svc-auth accepts its tokens by them).
  if (!isAuth(o.auth)) {
    issues.push({ path: 'auth', message: 'must be the object createAuth returned' });
  }
  if (!hasMethods(o.storage, STORAGE_METHODS))
    issues.push({ path: 'storage', message: 'must be an OAuthStorage (MemoryOAuthStorage, PostgresOAuthStorage, ...)' });
  const issuer = checkIssuer(o.issuer, issues);
  const signIn = checkSignIn(o.signIn, issues);
  const clients = o.clients === undefined ? {} : isPlainObject(o.clients) ? o.clients : undefined;
  if (clients === undefined)
    issues.push({
      path: 'clients',
      message: 'must be { registration?, registrationsPerHour?, authorizationsPerMinute?, unusedClientTtlSec?, metadataDocuments?, cli? }',
    });
  else
    checkOptions(
      clients,
      ['registration', 'registrationsPerHour', 'authorizationsPerMinute', 'unusedClientTtlSec', 'metadataDocuments', 'cli'],
      'clients',
      issues,
    );
  const cli = clients?.cli ?? false;
  if (typeof cli !== 'boolean') issues.push({ path: 'clients.cli', message: 'must be a boolean' });
  const registration = clients?.registration ?? true;
  if (typeof registration !== 'boolean') issues.push({ path: 'clients.registration', message: 'must be a boolean' });
  const registrationsPerHour = clients?.registrationsPerHour ?? 30;
  if (!isInt(registrationsPerHour, 1, 100_000))
    issues.push({ path: 'clients.registrationsPerHour', message: 'must be an integer from 1 to 100 000' });
  const authorizationsPerMinute = clients?.authorizationsPerMinute ?? 30;
  if (!isInt(authorizationsPerMinute, 1, 10_000))
    issues.push({ path: 'clients.authorizationsPerMinute', message: 'must be an integer from 1 to 10 000' });
  const unusedClientTtlSec = clients?.unusedClientTtlSec ?? 86_400;
  if (!isInt(unusedClientTtlSec, 600, 7_776_000))
    issues.push({ path: 'clients.unusedClientTtlSec', message: 'must be an integer from 600 to 7 776 000' });
  const documents = checkDocuments(clients?.metadataDocuments, issues);
  const resources = checkResources(o.resources, issuer, issues);
  const num = (key: string, def: number, min: number, max: number): number => {
    const v = o[key] ?? def;
    if (!isInt(v, min, max)) issues.push({ path: key, message: `must be an integer from ${min} to ${max}` });
    return typeof v === 'number' ? v : def;
  };
  const accessTokenTtlSec = num('accessTokenTtlSec', 3_600, 60, 3_600);
  const refreshTokenTtlSec = num('refreshTokenTtlSec', 1_209_600, 3_600, 7_776_000);
  const devicePollIntervalSec = num('devicePollIntervalSec', 5, 1, 60);
  const name = o.name ?? 'svc';
  if (typeof name !== 'string' || name.length === 0 || name.length > 40 || /[\u0000-\u001f\u007f]/.test(name)) {
    issues.push({ path: 'name', message: 'must be 1 to 40 printable characters' });
  }
  const look = checkLook(o.pages, typeof name === 'string' ? name : 'svc', issues);
  const prefix = o.pathPrefix ?? '/oauth';
  if (typeof prefix !== 'string' || !/^(?:\/[a-z0-9._-]+)+$/i.test(prefix) || prefix.startsWith('/.well-known')) {
    issues.push({ path: 'pathPrefix', message: 'must be a path such as /oauth (letters, digits, . _ -), not under /.well-known' });
  }
  if (o.trustProxy !== undefined && typeof o.trustProxy !== 'boolean') issues.push({ path: 'trustProxy', message: 'must be a boolean' });
  if (o.log !== undefined && typeof o.log !== 'function') issues.push({ path: 'log', message: 'must be a function' });
  if (issues.length > 0) throw new ValidationError(issues);
  const log = o.log as ((line: string) => void) | undefined;
  return {
    auth: o.auth as Auth,
    issuer,
    signIn,
    storage: o.storage as OAuthStorage,
    registration: registration as boolean,
    registrationsPerHour: registrationsPerHour as number,
    authorizationsPerMinute: authorizationsPerMinute as number,
    unusedClientTtlSec: unusedClientTtlSec as number,
    cli: cli === true,
    documents,
    resources,
    accessTokenTtlSec,
    refreshTokenTtlSec,
    devicePollIntervalSec,
    name: name as string,
    look,
    prefix: prefix as string,
    trustProxy: o.trustProxy === true,
    // A throwing or rejecting log hook must not change an answer.
    log: guardOnError(log),
  };
}
