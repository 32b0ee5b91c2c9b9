/**
 * Options of the GitHub secret scanning handler, checked once when it is built.
 * @module
 */
import type { KeyObject } from 'node:crypto';
import { ValidationError, type IssueInput } from '../../errors';
import { checkOptions, isPlainObject } from '../../core/vocabulary';
import { serviceUrl } from '../../core/network';
import { checkMaxBodyBytes } from '../body';
import { checkFunction, checkSource } from '../options';
import { GITHUB_SECRET_SCANNING_KEYS_URL, parseKeys, type GitHubPublicKeys, type KeyFetchOptions } from './keys';
import type { GitHubFeedback } from './matches';

/**
 * Options of {@link githubSecretScanningHandler}. By default the keys come from GitHub's keys URL,
 * cached for an hour.
 *
 * @example
 * ```ts
 * const options: GitHubSecretScanningOptions = { tokenTypes: ['acme_svc_pat'], githubToken: process.env.GITHUB_TOKEN, onError: console.error };
 * ```
 */
export interface GitHubSecretScanningOptions {
  /**
   * The token types you registered with GitHub's partner program (the names GitHub sends back as
   * each match's `type`, such as `acme_svc_pat`): 1 to 16 names of 1 to 256 characters from
   * `[A-Za-z0-9._:-]`. Required. A match of any other type is not judged (nothing revoked, no
   * store read) and is labelled `false_positive`: a pattern GitHub sends by mistake, or another
   * type on the same URL, never revokes anything here.
   */
  tokenTypes: readonly string[];
  /** GitHub's keys document, given rather than fetched (no request to GitHub is ever made then). Not with `keysUrl`. */
  keys?: GitHubPublicKeys;
  /** Where the keys document is fetched. Default `https://api.github.com/meta/public_keys/secret_scanning`; `https:` (or `http:` on a loopback host), without credentials or a fragment. */
  keysUrl?: string | URL;
  /** A GitHub token (no scopes needed) sent to the keys URL, which limits anonymous requests per address. */
  githubToken?: string;
  /** The `fetch` the keys are fetched with. Default: the global `fetch`. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** How long fetched keys are used before they are fetched again, in ms (60 000 to 86 400 000). Default one hour. */
  keysCacheMs?: number;
  /** Least time between two fetches, in ms (1 000 to 3 600 000), however many unknown key identifiers arrive. Default 60 000. */
  keysRefetchCooldownMs?: number;
  /** Longest one fetch may take, body included, in ms (100 to 60 000). Default 5 000. */
  keysTimeoutMs?: number;
  /** How the answer names each token for GitHub's false-positive feedback. Default `'token_hash'`. */
  feedback?: GitHubFeedback;
  /** The `source` of the `token.leaked` events. Default `'github'`. */
  source?: string;
  /** The largest body read, in bytes (1 to 104 857 600). Default 4 MiB. */
  maxBodyBytes?: number;
  /** Sees the original error of every 5xx answer (keys that could not be fetched, a store that failed). */
  onError?: (err: unknown) => void;
}

const KEYS = [
  'tokenTypes',
  'keys',
  'keysUrl',
  'githubToken',
  'fetch',
  'keysCacheMs',
  'keysRefetchCooldownMs',
  'keysTimeoutMs',
  'feedback',
  'source',
  'maxBodyBytes',
  'onError',
];
const TOKEN = /^[\x21-\x7e]{1,512}$/;
const TYPE = /^[A-Za-z0-9._:-]{1,256}$/;
const MAX_TYPES = 16;

/** The `tokenTypes` option as a set; an issue when it is not a list of type names. */
function tokenTypes(value: unknown, issues: IssueInput[]): ReadonlySet<string> {
  const ok =
    Array.isArray(value) && value.length >= 1 && value.length <= MAX_TYPES && value.every((t) => typeof t === 'string' && TYPE.test(t));
  if (!ok) {
    issues.push({
      path: 'options.tokenTypes',
      message: `must list the 1 to ${MAX_TYPES} token types registered with GitHub (names of [A-Za-z0-9._:-]): only their matches are judged`,
    });
    return new Set();
  }
  return new Set(value as string[]);
}

/** @internal the checked options. */
export interface CheckedGitHubOptions {
  tokenTypes: ReadonlySet<string>;
  keys: { keys: Map<string, KeyObject> } | { remote: KeyFetchOptions };
  feedback: GitHubFeedback;
  source: string;
  maxBodyBytes: number;
  onError: ((err: unknown) => void) | undefined;
}

function int(given: Record<string, unknown>, name: string, min: number, max: number, fallback: number, issues: IssueInput[]): number {
  const v = given[name];
  if (v === undefined) return fallback;
  if (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) return v;
  issues.push({ path: `options.${name}`, message: `must be an integer from ${min} to ${max}` });
  return fallback;
}

function keysUrl(value: unknown, issues: IssueInput[]): string {
  if (value === undefined) return GITHUB_SECRET_SCANNING_KEYS_URL;
  const url = typeof value === 'string' || value instanceof URL ? serviceUrl(value) : 'must be a URL';
  if (typeof url === 'string') {
    issues.push({ path: 'options.keysUrl', message: url });
    return GITHUB_SECRET_SCANNING_KEYS_URL;
  }
  return url.href;
}

/** @internal check the options of `githubSecretScanningHandler`; throws `ValidationError` listing every problem. */
export function checkGitHubOptions(options: unknown): CheckedGitHubOptions {
  if (options === undefined) {
    // Built as before tokenTypes existed: say what is missing rather than "not an object".
    throw new ValidationError([{ path: 'options.tokenTypes', message: 'is required: the token types registered with GitHub' }]);
  }
  if (!isPlainObject(options)) throw new ValidationError([{ path: 'options', message: 'must be an object' }]);
  const issues: IssueInput[] = [];
  checkOptions(options, KEYS, 'options', issues);
  const o = options as GitHubSecretScanningOptions & Record<string, unknown>;
  const types = tokenTypes(o.tokenTypes, issues);
  if (o.keys !== undefined && (o.keysUrl !== undefined || o.githubToken !== undefined || o.fetch !== undefined)) {
    issues.push({ path: 'options.keys', message: 'keys are given or fetched: not keys together with keysUrl, githubToken or fetch' });
  }
  let fixed: Map<string, KeyObject> | undefined;
  if (o.keys !== undefined) {
    const parsed = parseKeys(o.keys, true);
    if (typeof parsed === 'string') issues.push({ path: 'options.keys', message: parsed });
    else fixed = parsed;
  }
  const url = keysUrl(o.keysUrl, issues);
  if (o.githubToken !== undefined && (typeof o.githubToken !== 'string' || !TOKEN.test(o.githubToken))) {
    issues.push({ path: 'options.githubToken', message: 'must be 1 to 512 printable characters without spaces' });
  }
  const fetchImpl: unknown = o.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') issues.push({ path: 'options.fetch', message: 'must be a function (no global fetch here)' });
  if (o.feedback !== undefined && o.feedback !== 'token_hash' && o.feedback !== 'token_raw') {
    issues.push({ path: 'options.feedback', message: "must be 'token_hash' or 'token_raw'" });
  }
  const remote: KeyFetchOptions = {
    url,
    fetch: fetchImpl as KeyFetchOptions['fetch'],
    token: o.githubToken,
    cacheMs: int(o, 'keysCacheMs', 60_000, 86_400_000, 3_600_000, issues),
    cooldownMs: int(o, 'keysRefetchCooldownMs', 1_000, 3_600_000, 60_000, issues),
    timeoutMs: int(o, 'keysTimeoutMs', 100, 60_000, 5_000, issues),
  };
  const collect = <T>(check: () => T): T | undefined => {
    try {
      return check();
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      issues.push(...err.issues.map((i) => ({ code: i.code, path: [...i.path], message: i.message })));
      return undefined;
    }
  };
  const source = collect(() => checkSource(o.source, 'github', 'options.source'));
  const maxBodyBytes = collect(() => checkMaxBodyBytes(o.maxBodyBytes, 4 * 1024 * 1024, 'options.maxBodyBytes'));
  collect(() => checkFunction(o.onError, 'options.onError'));
  if (issues.length > 0) throw new ValidationError(issues);
  return {
    tokenTypes: types,
    keys: fixed !== undefined ? { keys: fixed } : { remote },
    feedback: o.feedback ?? 'token_hash',
    source: source as string,
    maxBodyBytes: maxBodyBytes as number,
    onError: o.onError,
  };
}
