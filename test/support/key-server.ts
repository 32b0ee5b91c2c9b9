/**
 * A tiny identity provider for the hostile cases: a real node:http server on
 * loopback that serves a discovery document and a JWKS the test changes at
 * will (rotate keys, go down, lie about its issuer), counts every request, and
 * signs whatever token a test wants, well formed or not.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, base64url, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export type KeyAlg = 'ES256' | 'RS256' | 'EdDSA' | 'ES384' | 'PS256';

export interface SigningKey {
  readonly kid: string;
  readonly alg: KeyAlg;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

export interface KeyServer {
  /** The issuer identifier, with a path (`…/realms/acme`) so RFC 8414's path insertion is exercised. */
  readonly issuer: string;
  readonly origin: string;
  readonly jwksUri: string;
  /** The keys published in the JWKS, by kid; change it to rotate. */
  readonly published: Map<string, SigningKey>;
  /** Answer 503 to everything while true. */
  down: boolean;
  /** Which discovery documents exist (default: both). */
  serve: { rfc8414: boolean; oidc: boolean };
  /** The `issuer` the discovery documents name (default: the real one). */
  docIssuer: string;
  /** Bytes of padding added to the JWKS answer (a body bomb). */
  pad: number;
  /** Requests seen, by kind. */
  readonly hits: { discovery: number; jwks: number; other: number };
  /** A new key (not yet published unless `publish`). */
  key(alg?: KeyAlg, kid?: string, publish?: boolean): Promise<SigningKey>;
  /** A token signed by `key` with the header's `typ` (default `at+jwt`) and these claims. */
  sign(key: SigningKey, claims: JWTPayload, header?: { typ?: string | null; kid?: string | null; alg?: string }): Promise<string>;
  close(): Promise<void>;
}

let seq = 0;

/** Start the key server on 127.0.0.1 with one published ES256 key. */
export async function startKeyServer(): Promise<KeyServer & { first: SigningKey }> {
  const published = new Map<string, SigningKey>();
  const state = {
    down: false,
    serve: { rfc8414: true, oidc: true },
    docIssuer: '',
    pad: 0,
    hits: { discovery: 0, jwks: 0, other: 0 },
  };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    const isDiscovery = path.startsWith('/.well-known/') || path.includes('/.well-known/');
    if (isDiscovery) state.hits.discovery++;
    if (path === '/keys') state.hits.jwks++;
    if (state.down) {
      res.writeHead(503).end('down');
      return;
    }
    const doc = (): string => JSON.stringify({ issuer: state.docIssuer, jwks_uri: jwksUri, token_endpoint: `${origin}/token` });
    if (path === '/.well-known/oauth-authorization-server/realms/acme' && state.serve.rfc8414) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(doc());
    } else if (path === '/realms/acme/.well-known/openid-configuration' && state.serve.oidc) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(doc());
    } else if (path === '/keys') {
      const keys = [...published.values()].map((k) => ({ ...k.publicJwk, kid: k.kid, alg: k.alg, use: 'sig' }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }) + ' '.repeat(state.pad));
    } else if (path === '/moved') {
      res.writeHead(302, { location: '/keys' }).end();
    } else {
      state.hits.other++;
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}/realms/acme`;
  const jwksUri = `${origin}/keys`;
  state.docIssuer = issuer;

  async function key(alg: KeyAlg = 'ES256', kid = `k${++seq}`, publish = false): Promise<SigningKey> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const k: SigningKey = { kid, alg, privateKey, publicJwk: await exportJWK(publicKey) };
    if (publish) published.set(kid, k);
    return k;
  }

  async function sign(
    k: SigningKey,
    claims: JWTPayload,
    header: { typ?: string | null; kid?: string | null; alg?: string } = {},
  ): Promise<string> {
    const protectedHeader: Record<string, string> = { alg: header.alg ?? k.alg };
    const typ = header.typ === undefined ? 'at+jwt' : header.typ;
    if (typ !== null) protectedHeader['typ'] = typ;
    const kid = header.kid === undefined ? k.kid : header.kid;
    if (kid !== null) protectedHeader['kid'] = kid;
    return new SignJWT(claims).setProtectedHeader(protectedHeader as { alg: string }).sign(k.privateKey);
  }

  const first = await key('ES256', 'first', true);
  return Object.assign(state, {
    issuer,
    origin,
    jwksUri,
    published,
    first,
    key,
    sign,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** `token` with its header replaced (the signature kept): for `alg: none` and other forgeries. */
export function withHeader(token: string, header: Record<string, unknown>, signature?: string): string {
  const [, payload, sig] = token.split('.');
  return `${base64url.encode(JSON.stringify(header))}.${payload}.${signature ?? sig}`;
}

/** An ES256 token's signature turned into its high-S twin (s -> n - s): the same signature, the other form. */
export function highS(token: string): string {
  const n = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');
  const [h, p, sig] = token.split('.') as [string, string, string];
  const bytes = base64url.decode(sig);
  const r = bytes.slice(0, 32);
  const s = BigInt(`0x${Buffer.from(bytes.slice(32)).toString('hex')}`);
  const high = s > n / 2n ? s : n - s;
  const sBytes = Buffer.from(high.toString(16).padStart(64, '0'), 'hex');
  return `${h}.${p}.${base64url.encode(Buffer.concat([r, sBytes]))}`;
}
