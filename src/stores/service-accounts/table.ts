/**
 * Service accounts for the in-process stores (memory, file): a checked,
 * frozen copy of each record, and the compare-and-set of
 * `putServiceAccount`. Synchronous, so a memory store's change is atomic and a
 * file store's runs under its lock.
 * @module
 */
import { ConflictError, ValidationError, type IssueInput } from '../../errors';
import { isRoleName, SERVICE_ACCOUNT_NAME } from '../../core/vocabulary';
import { ORG } from '../orgs';
import type { MachineClientRecord, PublicJwk, ServiceAccountRecord } from './types';

const MAX_TEXT = 1024;
const MAX_ID = 256;
/** The most clients one account keeps, revoked ones included. */
export const MAX_MACHINE_CLIENTS = 20;
const MAX_KEYS = 10;
const MAX_KEY_JSON = 8192;

const isText = (v: unknown, max: number): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;

function toDate(v: unknown, form: 'date' | 'iso'): Date | null {
  const d = form === 'date' ? v : typeof v === 'string' ? new Date(v) : null;
  return d instanceof Date && Number.isFinite(d.getTime()) ? new Date(d.getTime()) : null;
}

function checkKeys(raw: unknown, path: string, issues: IssueInput[]): { readonly keys: readonly PublicJwk[] } | null {
  const keys = typeof raw === 'object' && raw !== null ? (raw as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_KEYS) {
    issues.push({ path, message: `expected { keys: [...] } with 1 to ${MAX_KEYS} public keys` });
    return null;
  }
  const out: PublicJwk[] = [];
  keys.forEach((k: unknown, i) => {
    const ok = typeof k === 'object' && k !== null && !Array.isArray(k) && typeof (k as PublicJwk).kty === 'string' && !('d' in k);
    const json = ok ? JSON.stringify(k) : '';
    if (!ok || json.length > MAX_KEY_JSON) issues.push({ path: `${path}.keys.${i}`, message: 'expected a public JSON Web Key' });
    else out.push(Object.freeze(JSON.parse(json) as PublicJwk));
  });
  return Object.freeze({ keys: Object.freeze(out) });
}

function checkClient(raw: unknown, form: 'date' | 'iso', path: string, issues: IssueInput[]): MachineClientRecord | null {
  const c = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const before = issues.length;
  if (!isText(c.clientId, MAX_ID)) issues.push({ path: `${path}.clientId`, message: 'expected a client id' });
  const method = c.method;
  if (method !== 'private_key_jwt' && method !== 'client_secret_basic') {
    issues.push({ path: `${path}.method`, message: "expected 'private_key_jwt' or 'client_secret_basic'" });
  }
  const jwks = method === 'private_key_jwt' ? checkKeys(c.jwks, `${path}.jwks`, issues) : null;
  if (method === 'client_secret_basic' && !isText(c.secretHash, 128)) {
    issues.push({ path: `${path}.secretHash`, message: 'expected the secret hash' });
  }
  if (!isText(c.createdBy, MAX_ID)) issues.push({ path: `${path}.createdBy`, message: 'expected a user id' });
  const createdAt = toDate(c.createdAt, form);
  if (createdAt === null) issues.push({ path: `${path}.createdAt`, message: 'expected a valid date' });
  const revokedAt = c.revokedAt === null ? null : toDate(c.revokedAt, form);
  if (c.revokedAt !== null && revokedAt === null) issues.push({ path: `${path}.revokedAt`, message: 'expected null or a valid date' });
  if (issues.length !== before) return null;
  return Object.freeze({
    clientId: c.clientId as string,
    method: method as MachineClientRecord['method'],
    jwks,
    secretHash: method === 'client_secret_basic' ? (c.secretHash as string) : null,
    createdBy: c.createdBy as string,
    createdAt: createdAt as Date,
    revokedAt,
  });
}

/**
 * @internal Check `raw` as a {@link ServiceAccountRecord} and copy it, frozen
 * (dates as `form` says: `Date` objects, or ISO text from a file or a row).
 *
 * @example
 * ```ts
 * checkServiceAccount({ org: 'ACME' }, 'date'); // throws a ValidationError
 * ```
 */
export function checkServiceAccount(raw: unknown, form: 'date' | 'iso', path = 'serviceAccount'): ServiceAccountRecord {
  const issues: IssueInput[] = [];
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  if (typeof raw !== 'object' || raw === null) issues.push({ path, message: 'expected a service account object' });
  if (typeof r.org !== 'string' || !ORG.test(r.org))
    issues.push({ path: `${path}.org`, message: 'expected a lowercase organization name' });
  if (typeof r.name !== 'string' || !SERVICE_ACCOUNT_NAME.test(r.name)) {
    issues.push({ path: `${path}.name`, message: 'expected 1 to 64 of a-z 0-9 -, starting with a letter or digit' });
  }
  if (!isRoleName(r.role)) issues.push({ path: `${path}.role`, message: 'expected one of owner, admin, editor, viewer' });
  if (!(r.description === null || isText(r.description, MAX_TEXT))) {
    issues.push({ path: `${path}.description`, message: `expected null or 1 to ${MAX_TEXT} characters` });
  }
  if (typeof r.disabled !== 'boolean') issues.push({ path: `${path}.disabled`, message: 'expected a boolean' });
  const clients: MachineClientRecord[] = [];
  if (!Array.isArray(r.clients) || r.clients.length > MAX_MACHINE_CLIENTS) {
    issues.push({ path: `${path}.clients`, message: `expected a list of at most ${MAX_MACHINE_CLIENTS} clients` });
  } else {
    r.clients.forEach((c: unknown, i) => {
      const got = checkClient(c, form, `${path}.clients.${i}`, issues);
      if (got !== null) clients.push(got);
    });
  }
  for (const key of ['createdBy', 'updatedBy'] as const) {
    if (!isText(r[key], MAX_ID)) issues.push({ path: `${path}.${key}`, message: 'expected a user id' });
  }
  const createdAt = toDate(r.createdAt, form);
  const updatedAt = toDate(r.updatedAt, form);
  if (createdAt === null) issues.push({ path: `${path}.createdAt`, message: 'expected a valid date' });
  if (updatedAt === null) issues.push({ path: `${path}.updatedAt`, message: 'expected a valid date' });
  if (!Number.isSafeInteger(r.version) || (r.version as number) < 1)
    issues.push({ path: `${path}.version`, message: 'expected a whole number from 1' });
  if (issues.length > 0) throw new ValidationError(issues);
  return Object.freeze({
    org: r.org as string,
    name: r.name as string,
    role: r.role as ServiceAccountRecord['role'],
    description: r.description as string | null,
    disabled: r.disabled as boolean,
    clients: Object.freeze(clients),
    createdBy: r.createdBy as string,
    createdAt: createdAt as Date,
    updatedBy: r.updatedBy as string,
    updatedAt: updatedAt as Date,
    version: r.version as number,
  });
}

/**
 * @internal The service accounts of an in-process store, keyed `org/name`.
 *
 * @example
 * ```ts
 * const table = new ServiceAccountTable();
 * table.put(account); // true
 * table.read('acme', 'ci-bot')?.role; // 'editor'
 * ```
 */
export class ServiceAccountTable {
  private readonly accounts = new Map<string, ServiceAccountRecord>();

  read(org: string, name: string): ServiceAccountRecord | null {
    if (typeof org !== 'string' || typeof name !== 'string') return null;
    return this.accounts.get(`${org}/${name}`) ?? null;
  }

  list(org: string): ServiceAccountRecord[] {
    const out = [...this.accounts.values()].filter((a) => a.org === org);
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The compare-and-set of `putServiceAccount`; a client id another account holds is a `ConflictError`. */
  put(raw: unknown): boolean {
    const record = checkServiceAccount(raw, 'date');
    const key = `${record.org}/${record.name}`;
    const stored = this.accounts.get(key);
    if (stored === undefined ? record.version !== 1 : stored.version !== record.version - 1) return false;
    for (const c of record.clients) {
      for (const other of this.accounts.values()) {
        if (other !== stored && other.clients.some((o) => o.clientId === c.clientId)) {
          throw new ConflictError(`the client id ${c.clientId} belongs to another service account`);
        }
      }
    }
    this.accounts.set(key, record);
    return true;
  }

  /** Every record as JSON-ready objects (ISO dates), for a file. */
  json(): unknown[] {
    return [...this.accounts.values()].map((a) => JSON.parse(JSON.stringify(a)) as unknown);
  }

  /** This table, holding the records read from a file (checked; ISO dates); a bad one is a `ValidationError`. */
  loaded(rows: unknown): this {
    if (!Array.isArray(rows)) throw new ValidationError([{ path: 'accounts', message: 'expected a list' }]);
    const next = rows.map((row: unknown, i) => checkServiceAccount(row, 'iso', `accounts.${i}`));
    this.accounts.clear();
    for (const a of next) this.accounts.set(`${a.org}/${a.name}`, a);
    return this;
  }
}
