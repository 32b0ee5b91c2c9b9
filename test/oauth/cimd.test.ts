import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approve, authorize, Browser, listen, redeem, REDIRECT, type Running, startServer } from '../support/oauth';

/** The key of the private_key_jwt document client (its public half is served at /keys.json). */
const clientKey = await generateKeyPair('ES256');
const publicJwk = { ...(await exportJWK(clientKey.publicKey)), alg: 'ES256', use: 'sig' };

/** A site that serves client metadata documents, counting every request per path. */
async function documentSite(): Promise<{ base: string; hits: Map<string, number>; close(): void }> {
  const hits = new Map<string, number>();
  let base = '';
  const doc = (path: string, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({ client_id: `${base}${path}`, client_name: 'Doc Client', redirect_uris: [REDIRECT], ...extra });
  const { server, base: b } = await listen((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const json = (body: string, headers: Record<string, string> = {}): void => {
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      res.end(body);
    };
    if (path === '/client.json') return json(doc(path), { 'cache-control': 'max-age=300' });
    if (path === '/big.json') return json(doc(path, { padding: 'x'.repeat(10_000) }));
    if (path === '/slow.json') return void setTimeout(() => json(doc(path)), 2_000);
    if (path === '/redirect.json') return void res.writeHead(302, { location: '/client.json' }).end();
    if (path === '/other.json') return json(doc('/client.json'));
    if (path === '/secret.json') return json(doc(path, { client_secret: 's3cret', token_endpoint_auth_method: 'client_secret_post' }));
    if (path === '/pkjwt.json') return json(doc(path, { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: `${base}/keys.json` }));
    if (path === '/keys.json') return json(JSON.stringify({ keys: [publicJwk] }));
    if (path === '/offsite-keys.json')
      return json(doc(path, { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'http://169.254.169.254/keys' }));
    if (path === '/page.json') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    res.writeHead(404).end();
  });
  base = b;
  return { base, hits, close: () => void server.close() };
}

async function authorizeWith(s: Running, clientId: string): Promise<{ status: number; text: string; location: string | null }> {
  const { url } = authorize(s.base, clientId);
  const res = await new Browser().request(url, { headers: { accept: 'text/html' } });
  return { status: res.status, text: await res.text(), location: res.headers.get('location') };
}

describe('clients by Client ID Metadata Document (MCP 2025-11-25)', () => {
  let site: Awaited<ReturnType<typeof documentSite>>;
  let dev: Running;
  beforeAll(async () => {
    site = await documentSite();
    dev = await startServer({ clients: { metadataDocuments: { allowLoopback: true, timeoutMs: 300 } } });
  });
  afterAll(async () => {
    site.close();
    await dev.close();
  });

  it('a client whose id is its document URL runs the code flow; the consent page shows the site it was fetched from', async () => {
    const clientId = `${site.base}/client.json`;
    const request = authorize(dev.base, clientId);
    const { code, consentHtml } = await approve(request);
    expect(consentHtml).toContain('Doc Client');
    expect(consentHtml).toContain('Client site');
    expect(consentHtml).toContain(new URL(site.base).host);
    const r = await redeem(request, code as string);
    expect(r.status).toBe(200);
    expect(decodeJwt(r.body.access_token as string)).toMatchObject({ client_id: clientId, aud: `${dev.base}/mcp` });
    // Cached for its max-age: the whole flow fetched the document once.
    expect(site.hits.get('/client.json')).toBe(1);
  });

  it('a document client with private_key_jwt and a jwks_uri on its origin redeems its code with a signed assertion only', async () => {
    const clientId = `${site.base}/pkjwt.json`;
    const request = authorize(dev.base, clientId, { state: undefined, resource: undefined });
    const code = async (): Promise<string> => (await approve(request)).code as string;
    // Without the assertion (as a public client would): refused.
    expect((await redeem(request, await code())).status).toBe(401);
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(dev.base)
      .setJti(crypto.randomUUID())
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(clientKey.privateKey as CryptoKey);
    const r = await redeem(request, await code(), {
      client_id: undefined,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    });
    expect(r.status).toBe(200);
    expect(decodeJwt(r.body.access_token as string)).toMatchObject({ client_id: clientId });
    expect(site.hits.get('/keys.json')).toBe(1);
  });

  it('SSRF by a document: a jwks_uri off the document’s origin is refused, never fetched', async () => {
    const refused = await authorizeWith(dev, `${site.base}/offsite-keys.json`);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('jwks_uri');
  });

  for (const [attack, path, reason] of [
    ['an oversized document (memory exhaustion)', '/big.json', 'too large'],
    ['a document that never finishes (slowloris)', '/slow.json', 'in time'],
    ['a redirect to another document (redirect smuggling)', '/redirect.json', 'redirects are not followed'],
    ['a document naming another client_id (impersonation)', '/other.json', 'another client_id'],
    ['a document with a client secret (confidential client smuggling)', '/secret.json', 'secret'],
    ['a document that is not JSON', '/page.json', 'not served as JSON'],
  ] as const) {
    it(`${attack} is refused, and the failure is remembered (one fetch for two attempts)`, async () => {
      const started = Date.now();
      const first = await authorizeWith(dev, `${site.base}${path}`);
      expect(first.status).toBe(400);
      expect(first.location).toBeNull();
      expect(first.text).toContain('invalid_client');
      expect(first.text).toContain(reason);
      expect(Date.now() - started).toBeLessThan(1_500);
      const second = await authorizeWith(dev, `${site.base}${path}`);
      expect(second.status).toBe(400);
      expect(site.hits.get(path)).toBe(1);
    });
  }

  it('SSRF to loopback: a server that does not allow loopback documents refuses them without fetching', async () => {
    const strict = await startServer();
    try {
      const r = await authorizeWith(strict, `${site.base}/client.json`);
      expect(r.status).toBe(400);
      expect(r.text).toMatch(/must use https|dev instance/);
      expect(site.hits.get('/client.json')).toBe(1);
    } finally {
      await strict.close();
    }
  });

  it('SSRF to private addresses: 10.0.0.1, 169.254.169.254 and [fd00::1] are refused before any connection', async () => {
    for (const host of ['10.0.0.1', '169.254.169.254', '[fd00::1]', '192.168.1.1']) {
      const started = Date.now();
      const r = await authorizeWith(dev, `https://${host}/client.json`);
      expect(r.status).toBe(400);
      expect(r.text).toContain('not allowed');
      expect(Date.now() - started).toBeLessThan(250);
    }
  });

  it('SSRF through DNS: a public-looking name that resolves to loopback is refused where the connection is made', async () => {
    const name = hostname();
    const { address } = await lookup(name).catch(() => ({ address: '' }));
    if (!address.startsWith('127.')) return; // this machine's name is not a loopback alias: nothing to check here
    const strict = await startServer();
    try {
      const port = new URL(site.base).port;
      const r = await authorizeWith(strict, `https://${name}:${port}/client.json`);
      expect(r.status).toBe(400);
      expect(r.text).toContain('resolves to an address that is not allowed');
    } finally {
      await strict.close();
    }
  });

  it('an allow-list of sites refuses documents from other sites', async () => {
    const listed = await startServer({ clients: { metadataDocuments: { allow: ['https://vscode.dev'] } } });
    try {
      const r = await authorizeWith(listed, 'https://evil.example/client.json');
      expect(r.status).toBe(400);
      expect(r.text).toContain('does not accept clients from that site');
    } finally {
      await listed.close();
    }
  });

  it('with metadata documents off, a URL client id is an unknown client, and the metadata says so', async () => {
    const off = await startServer({ clients: { metadataDocuments: false } });
    try {
      const meta = (await (await fetch(`${off.base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(meta.client_id_metadata_document_supported).toBe(false);
      const r = await authorizeWith(off, `${site.base}/client.json`);
      expect(r.status).toBe(400);
      expect(r.text).toContain('invalid_client');
    } finally {
      await off.close();
    }
  });
});
