/**
 * GitHub's keys, as the secret scanning endpoint gets them: fetched from the
 * keys URL and cached (bounded in size, time and frequency), or given. Keys
 * that cannot be had are a 503, never an accepted request; a rotation is
 * picked up on the next fetch the cooldown allows; cached keys outlive an
 * outage of the keys URL for a bounded time.
 */
import { createPublicKey } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError, ValidationError } from '../../../src/errors';
import { githubSecretScanningHandler, type GitHubSecretScanningOptions } from '../../../src/leaks';
import { KeySource } from '../../../src/leaks/github/keys';
import { MemoryTokenStore } from '../../../src/stores';
import { caught, rejection } from '../../support/errors';
import { keysDocument, keysServer, signed, signingKey, type KeysServer, type SigningKey } from '../github-play';
import { world, type World } from '../servers';

let github: SigningKey;
let keys: KeysServer;
let w: World;
beforeAll(async () => {
  github = signingKey('k1');
  keys = await keysServer(keysDocument(github));
  w = await world(new MemoryTokenStore());
});
afterAll(() => keys.close());

const BODY = '[{"token":"some_token","type":"svc_auth_pat","url":"","source":"content"}]';
const request = (key: SigningKey = github, body = BODY): Request =>
  new Request('http://127.0.0.1/hooks/github', { method: 'POST', headers: signed(body, key), body });
const handler = (options: Partial<GitHubSecretScanningOptions> = {}) =>
  githubSecretScanningHandler(w.auth, { tokenTypes: ['svc_auth_pat'], keysUrl: keys.url, ...options });

describe('keys from the keys URL', () => {
  it('keys that cannot be had are 503, never an accept: refused connection, 500, oversized, no P-256 key, a hang', async () => {
    const seen: unknown[] = [];
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/keys`;
    await new Promise((r) => closed.close(r));
    const dead = githubSecretScanningHandler(w.auth, { tokenTypes: ['svc_auth_pat'], keysUrl: deadUrl, onError: (e) => seen.push(e) });
    const res = await dead.fetch(request());
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: 'unavailable' });
    expect(seen[0]).toBeInstanceOf(UnavailableError);

    const rsa = createPublicKey(
      (await import('node:crypto')).generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }),
    );
    for (const what of [
      { status: 500 },
      { raw: `{"public_keys":[${'{"key_identifier":"x","key":"y"},'.repeat(3000)}{}]}` },
      { document: keysDocument({ id: 'k1', pem: rsa.export({ type: 'spki', format: 'pem' }).toString() }) },
      { raw: 'not json' },
      { hang: true as const },
    ]) {
      keys.serve(what);
      const h = handler({ keysTimeoutMs: 300 });
      expect((await h.fetch(request())).status).toBe(503);
    }
    keys.serve({ document: keysDocument(github) });
  });

  it('after a failed fetch, requests within the cooldown are 503 without fetching again', async () => {
    keys.serve({ status: 502 });
    const h = handler();
    const before = keys.hits;
    for (let i = 0; i < 5; i++) expect((await h.fetch(request())).status).toBe(503);
    expect(keys.hits - before).toBe(1);
    keys.serve({ document: keysDocument(github) });
  });

  it('cached keys keep working while the keys URL is down', async () => {
    const h = handler();
    expect((await h.fetch(request())).status).toBe(200);
    keys.serve({ status: 500 });
    const before = keys.hits;
    for (let i = 0; i < 3; i++) expect((await h.fetch(request())).status).toBe(200);
    expect(keys.hits).toBe(before);
    keys.serve({ document: keysDocument(github) });
  });

  it('a rotation is picked up: a new identifier is fetched once the cooldown allows', async () => {
    const h = handler({ keysRefetchCooldownMs: 1_000 });
    expect((await h.fetch(request())).status).toBe(200);
    const next = signingKey('k2');
    keys.serve({ document: keysDocument(github, next) });
    // Within the cooldown the new key is not known yet: 503 (GitHub sends it again), not fetched.
    const early = await h.fetch(request(next));
    expect(early.status).toBe(503);
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await h.fetch(request(next))).status).toBe(200);
    expect((await h.fetch(request(github))).status).toBe(200);
    keys.serve({ document: keysDocument(github) });
  });

  it('given keys: no request to any keys URL, ever', async () => {
    const before = keys.hits;
    const h = githubSecretScanningHandler(w.auth, { tokenTypes: ['svc_auth_pat'], keys: keysDocument(github) });
    expect((await h.fetch(request())).status).toBe(200);
    expect((await h.fetch(request(signingKey('other')))).status).toBe(403);
    expect(keys.hits).toBe(before);
  });
});

describe('KeySource (the cache), on a clock of its own', () => {
  const HOUR = 3_600_000;
  function source(fetchImpl: () => Promise<Response>, clock: { ms: number }): KeySource {
    return new KeySource({
      remote: {
        url: 'https://keys.test/',
        fetch: fetchImpl,
        token: undefined,
        cacheMs: HOUR,
        cooldownMs: 60_000,
        timeoutMs: 1_000,
        now: () => clock.ms,
      },
    });
  }
  const ok = (): Promise<Response> => Promise.resolve(Response.json(keysDocument(github)));

  it('fetches once for concurrent lookups, again after the TTL, and not in between', async () => {
    const clock = { ms: 0 };
    let calls = 0;
    const s = source(() => (calls++, ok()), clock);
    await Promise.all(Array.from({ length: 10 }, () => s.find('k1')));
    expect(calls).toBe(1);
    clock.ms += HOUR - 1;
    expect(await s.find('k1')).toBeDefined();
    expect(calls).toBe(1);
    clock.ms += 1;
    expect(await s.find('k1')).toBeDefined();
    expect(calls).toBe(2);
  });

  it("an identifier not listed is known to be unlisted only by a fetch made for it; within the cooldown it is 'later'", async () => {
    const clock = { ms: 0 };
    let calls = 0;
    const s = source(() => (calls++, ok()), clock);
    expect(await s.find('nope')).toBeUndefined();
    expect(await s.find('nope-either')).toBe('later');
    expect(s.retryAfterSec()).toBe(60);
    clock.ms += 59_500;
    expect(s.retryAfterSec()).toBe(1);
    clock.ms += 500;
    expect(await s.find('nope-either')).toBeUndefined();
    expect(calls).toBe(2);
  });

  it('keys outlive a failed refresh for 24 hours, then are unavailable', async () => {
    const clock = { ms: 0 };
    let down = false;
    const s = source(() => (down ? Promise.reject(new Error('down')) : ok()), clock);
    expect(await s.find('k1')).toBeDefined();
    down = true;
    clock.ms += 23 * HOUR;
    expect(await s.find('k1')).toBeDefined();
    clock.ms += HOUR;
    expect(await rejection(s.find('k1'))).toBeInstanceOf(UnavailableError);
  });
});

describe('options and frameworks', () => {
  it.each([
    ['keys with keysUrl', { keys: { public_keys: [] }, keysUrl: 'https://x.test/' }, 'options.keys'],
    ['keys that hold no P-256 key', { keys: { public_keys: [{ key_identifier: 'a', key: 'nope' }] } }, 'options.keys'],
    ['an http keysUrl on another host', { keysUrl: 'http://keys.example/' }, 'options.keysUrl'],
    ['a keysUrl that is not http', { keysUrl: 'file:///etc/passwd' }, 'options.keysUrl'],
    ['a githubToken with a space', { githubToken: 'a b' }, 'options.githubToken'],
    ['feedback "both"', { feedback: 'both' }, 'options.feedback'],
    ['keysCacheMs of 1 s', { keysCacheMs: 1_000 }, 'options.keysCacheMs'],
    ['keysRefetchCooldownMs of 0', { keysRefetchCooldownMs: 0 }, 'options.keysRefetchCooldownMs'],
    ['an unknown option', { secret: 'x' }, 'options.secret'],
    ['no tokenTypes (every type would be judged)', {}, 'options.tokenTypes'],
    ['an empty tokenTypes', { tokenTypes: [] }, 'options.tokenTypes'],
    ['a tokenTypes name with a space', { tokenTypes: ['acme pat'] }, 'options.tokenTypes'],
    ['a tokenTypes that is a string', { tokenTypes: 'svc_auth_pat' }, 'options.tokenTypes'],
    ['no options at all', undefined, 'options.tokenTypes'],
  ])('%s is refused when the handler is built', (_what, options, path) => {
    const err = caught(() => githubSecretScanningHandler(w.auth, options as never));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.pathText)).toContain(path);
  });

  async function express_(parser: express.RequestHandler, seen: unknown[]): Promise<{ url: string; close(): void }> {
    const h = githubSecretScanningHandler(w.auth, {
      tokenTypes: ['svc_auth_pat'],
      keys: keysDocument(github),
      onError: (e) => seen.push(e),
    });
    const app = express();
    app.post('/hooks/github', parser, h.node);
    const server = createServer(app).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/github`,
      close: () => {
        server.closeAllConnections();
        server.close();
      },
    };
  }

  it('behind Express with express.raw(): the raw bytes are verified', async () => {
    const app = await express_(express.raw({ type: 'application/json' }), []);
    try {
      const res = await fetch(app.url, { method: 'POST', headers: signed(BODY, github), body: BODY });
      expect(res.status).toBe(200);
    } finally {
      app.close();
    }
  });

  it('behind express.json(): a parsed body cannot be verified, a 500 that onError hears', async () => {
    const seen: unknown[] = [];
    const app = await express_(express.json(), seen);
    try {
      const res = await fetch(app.url, { method: 'POST', headers: signed(BODY, github), body: BODY });
      expect(res.status).toBe(500);
      expect(String(seen[0])).toContain('raw body');
    } finally {
      app.close();
    }
  });
});
