/**
 * The GitHub secret scanning partner endpoint, played locally: our own P-256
 * key pair, published in GitHub's keys document format by a loopback server,
 * requests signed as GitHub signs them, over real HTTP in the node:http form
 * and the fetch form (@hono/node-server), on the three stores. GitHub's own
 * documented sample request (its key, its signature, its body) is accepted
 * byte for byte; forgeries are refused before any token is looked at.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../src/errors';
import { githubSecretScanningHandler, type GitHubSecretScanningOptions } from '../../src/leaks';
import { MemoryTokenStore } from '../../src/stores';
import { rejection } from '../support/errors';
import { dropStores, tokenStores } from '../support/token-stores';
import { GITHUB_SAMPLE, keysDocument, keysServer, signed, signingKey, type KeysServer, type SigningKey } from './github-play';
import { fetchServer, leakedEvents, nodeServer, world, type Running, type World } from './servers';

const STORES = tokenStores('test/leaks/github.test.ts');
type Form = 'node' | 'fetch';
const FORMS: Form[] = ['node', 'fetch'];
const PATH = '/hooks/github/secret-scanning';

let github: SigningKey;
let keys: KeysServer;
beforeAll(async () => {
  github = signingKey('4fe6b016179b74078ade7581abf4e84fb398c6fae4fb973972235b84fcd70ca3');
  keys = await keysServer(keysDocument(github));
});
afterAll(async () => {
  await keys.close();
  await dropStores();
});

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

async function start(w: World, form: Form, options: Partial<GitHubSecretScanningOptions> = {}): Promise<Running> {
  const h = githubSecretScanningHandler(w.auth, { tokenTypes: ['svc_auth_pat'], keysUrl: keys.url, ...options });
  return form === 'node' ? nodeServer((req, res) => h.node(req, res)) : fetchServer((req) => h.fetch(req));
}

const send = (server: Running, body: string | Uint8Array, headers: Record<string, string>): Promise<Response> =>
  fetch(`${server.url}${PATH}`, { method: 'POST', headers, body });

/** GitHub's payload for matches of `tokens`, as it sends it (compact JSON, one object per match). */
const payload = (...tokens: string[]): string =>
  JSON.stringify(
    tokens.map((token) => ({
      token,
      type: 'svc_auth_pat',
      url: 'https://github.com/octocat/Hello-World/blob/12345600b9cbe38a219f39a9941c9319b600c002/foo/bar.txt',
      source: 'content',
    })),
  );

async function reason(p: Promise<unknown>): Promise<string> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(AuthenticationError);
  return (err as AuthenticationError).reason;
}

describe.each(STORES)('GitHub reports a leaked token, on the %s store', (_name, makeStore) => {
  it.each(FORMS)('%s form: revoked with its subtree, labelled true_positive, one token.leaked with the url', async (form) => {
    const w = await world(await makeStore());
    const before = keys.hits;
    const server = await start(w, form, { githubToken: 'ghp_test' });
    try {
      const me = await w.auth.principalFor('alice');
      const leaked = await w.auth.client(me).token.create({ name: 'in-public' });
      const child = await w.auth.client(await w.auth.authenticate(leaked.token)).token.create({ name: 'its-child' });
      const body = payload(leaked.token, 'some_token');
      const res = await send(server, body, signed(body, github));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual([
        { token_hash: sha256(leaked.token), token_type: 'svc_auth_pat', label: 'true_positive' },
        { token_hash: sha256('some_token'), token_type: 'svc_auth_pat', label: 'false_positive' },
      ]);
      expect(await reason(w.auth.authenticate(leaked.token))).toBe('revoked');
      expect(await reason(w.auth.authenticate(child.token))).toBe('revoked');
      await w.auth.flush();
      const events = leakedEvents(w.events);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        source: 'github',
        url: 'https://github.com/octocat/Hello-World/blob/12345600b9cbe38a219f39a9941c9319b600c002/foo/bar.txt',
        token: { id: leaked.info.id, name: 'in-public', ownerId: 'alice' },
        revokedIds: [leaked.info.id, child.info.id],
      });
      expect(keys.hits - before).toBe(1);
      expect(keys.lastAuthorization).toBe('Bearer ghp_test');
      await Promise.all(server.calls);
    } finally {
      await server.close();
    }
  });
});

describe.each(FORMS)('the GitHub endpoint, %s form', (form) => {
  let w: World;
  let server: Running;
  let token: string;
  const fresh = async (options: Partial<GitHubSecretScanningOptions> = {}): Promise<void> => {
    await server?.close();
    w = await world(new MemoryTokenStore());
    token = (await w.auth.client(await w.auth.principalFor('alice')).token.create({ name: 'pat' })).token;
    server = await start(w, form, options);
  };
  beforeAll(() => fresh());
  afterAll(async () => {
    await server.close();
    await Promise.all(server.calls); // no handler promise ever rejected
  });

  it("replays GitHub's documented example payload, signed by the test key: 200, false_positive, token_hash", async () => {
    const res = await send(server, GITHUB_SAMPLE.body, signed(GITHUB_SAMPLE.body, github));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual([{ token_hash: sha256('some_token'), token_type: 'some_type', label: 'false_positive' }]);
  });

  it("accepts GitHub's own documented sample request byte for byte (GitHub's key, identifier and signature)", async () => {
    keys.serve({ document: keysDocument(github, { id: GITHUB_SAMPLE.keyId, pem: GITHUB_SAMPLE.key }) });
    try {
      await fresh({ feedback: 'token_raw' });
      const res = await send(server, GITHUB_SAMPLE.body, {
        'Content-Type': 'application/json',
        'Github-Public-Key-Identifier': GITHUB_SAMPLE.keyId,
        'Github-Public-Key-Signature': GITHUB_SAMPLE.signature,
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual([{ token_raw: 'some_token', token_type: 'some_type', label: 'false_positive' }]);
    } finally {
      keys.serve({ document: keysDocument(github) });
      await fresh();
    }
  });

  it('a genuine request sent again (replay) revokes nothing new and gets the same labels', async () => {
    const body = payload(token);
    const headers = signed(body, github);
    const first = await (await send(server, body, headers)).json();
    const again = await (await send(server, body, headers)).json();
    expect(again).toEqual(first);
    expect(first).toEqual([{ token_hash: sha256(token), token_type: 'svc_auth_pat', label: 'true_positive' }]);
    await w.auth.flush();
    expect(leakedEvents(w.events)).toHaveLength(1);
    await fresh();
  });

  async function refusedUntouched(res: Response, status: number, reasonText?: RegExp): Promise<void> {
    expect(res.status).toBe(status);
    const json = (await res.json()) as { error: string; message: string; reason?: string };
    if (status === 403) expect(json).toMatchObject({ error: 'forbidden', reason: 'signature' });
    if (reasonText !== undefined) expect(json.message).toMatch(reasonText);
    // Nothing was revoked.
    expect((await w.auth.authenticate(token)).tokenName).toBe('pat');
  }

  it('forgery: an unsigned request is 403', async () => {
    await refusedUntouched(await send(server, payload(token), { 'content-type': 'application/json' }), 403, /not signed/);
  });

  it('forgery: the identifier without a signature, or the signature without an identifier, is 403', async () => {
    const h = signed(payload(token), github);
    const onlyId = { 'Github-Public-Key-Identifier': h['Github-Public-Key-Identifier'] as string };
    const onlySig = { 'Github-Public-Key-Signature': h['Github-Public-Key-Signature'] as string };
    await refusedUntouched(await send(server, payload(token), onlyId), 403);
    await refusedUntouched(await send(server, payload(token), onlySig), 403);
  });

  it("forgery: signed by another key under GitHub's identifier is 403", async () => {
    const attacker = signingKey(github.id);
    await refusedUntouched(await send(server, payload(token), signed(payload(token), attacker)), 403, /does not match/);
  });

  it('replayed with another body: a genuine signature of one body on another is 403', async () => {
    const genuine = signed(GITHUB_SAMPLE.body, github);
    await refusedUntouched(await send(server, payload(token), genuine), 403, /does not match/);
    // One byte more (a trailing newline) is another body too.
    const body = payload(token);
    await refusedUntouched(await send(server, `${body}\n`, signed(body, github)), 403);
  });

  it.each([
    ['not base64', 'not base64!'],
    [
      'non-canonical base64 (other padding bits)',
      'MEQCIQDaMKqrGnE27S0kgMrEK0eYBmyG0LeZismAEz/BgZyt7AIfXt9fErtRS4XaeSt/AO1RtBY66YcAdjxji410VQV4xh==',
    ],
    ['too long for a P-256 signature', 'A'.repeat(200)],
    ['empty', ''],
  ])('forgery: a signature that is %s is 403', async (_what, sig) => {
    const h = { ...signed(payload(token), github), 'Github-Public-Key-Signature': sig };
    await refusedUntouched(await send(server, payload(token), h), 403);
  });

  it('forgery: a key identifier GitHub does not list is 403 once the keys are fetched for it; a flood of made-up identifiers fetches the keys at most once per cooldown (503 meanwhile)', async () => {
    await fresh();
    const before = keys.hits;
    await refusedUntouched(await send(server, payload(token), signed(payload(token), signingKey('unknown-0'))), 403, /does not list/);
    for (let i = 1; i < 30; i++) {
      const res = await send(server, payload(token), signed(payload(token), signingKey(`unknown-${i}`)));
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      await refusedUntouched(res, 503);
    }
    expect(keys.hits - before).toBe(1);
  });

  it('memory exhaustion: a body over maxBodyBytes is 413, declared or streamed, and never verified', async () => {
    await fresh({ maxBodyBytes: 1024 });
    const big = payload('x'.repeat(2000));
    await refusedUntouched(await send(server, big, signed(big, github)), 413);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 64; i++) c.enqueue(new TextEncoder().encode(' '.repeat(1024)));
        c.close();
      },
    });
    const res = await fetch(`${server.url}${PATH}`, {
      method: 'POST',
      headers: signed('[]', github),
      body: stream,
      duplex: 'half',
    } as RequestInit);
    await refusedUntouched(res, 413);
    await fresh();
  });

  it.each([
    ['not JSON', '[{"token":'],
    ['an object, not an array', '{"token":"x","type":"t"}'],
    ['a match without a token', '[{"type":"t","url":"","source":"content"}]'],
    ['a type that is a number', '[{"token":"x","type":1}]'],
    ['a url that is an object', '[{"token":"x","type":"t","url":{}}]'],
    ['a match that is a string', '["eyJ"]'],
  ])('a signed body that is %s is 400', async (_what, body) => {
    await refusedUntouched(await send(server, body, signed(body, github)), 400);
  });

  it('keys GitHub may add to a match are ignored; an empty url is no url', async () => {
    const body = JSON.stringify([{ token, type: 'svc_auth_pat', url: '', source: 'npm', secret_scanning_future: { x: 1 } }]);
    const res = await send(server, body, signed(body, github));
    expect(res.status).toBe(200);
    await w.auth.flush();
    expect(leakedEvents(w.events).at(-1)).toMatchObject({ source: 'github', url: null });
    await fresh();
  });

  it('GET is 405', async () => {
    const res = await fetch(`${server.url}${PATH}`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});
