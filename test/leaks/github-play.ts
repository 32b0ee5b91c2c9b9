/**
 * Playing GitHub's secret scanning partner program locally: a P-256 key pair
 * of our own, a loopback server that publishes its public key in GitHub's
 * keys document format, and requests signed the way GitHub signs them
 * (ECDSA P-256, SHA-256, DER, base64, over the raw body).
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** GitHub's documented sample request (docs "Secret scanning partner program", "Sample HTTP POST sent to verify endpoint"). */
export const GITHUB_SAMPLE = {
  body: '[{"source":"commit","token":"some_token","type":"some_type","url":"https://example.com/base-repo-url/"}]',
  keyId: 'bcb53661c06b4728e59d897fb6165d5c9cda0fd9cdf9d09ead458168deb7518c',
  signature: 'MEQCIQDaMKqrGnE27S0kgMrEK0eYBmyG0LeZismAEz/BgZyt7AIfXt9fErtRS4XaeSt/AO1RtBY66YcAdjxji410VQV4xg==',
  /** The public key GitHub publishes under that identifier (api.github.com/meta/public_keys/secret_scanning). */
  key: [
    '-----BEGIN PUBLIC KEY-----',
    'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEYAGMWO8XgCamYKMJS6jc/qgvSlAd',
    'AjPuDPRcXU22YxgBrz+zoN19MzuRyW87qEt9/AmtoNP5GrobzUvQSyJFVw==',
    '-----END PUBLIC KEY-----',
    '',
  ].join('\n'),
};

export interface SigningKey {
  id: string;
  privateKey: KeyObject;
  pem: string;
}

/** A fresh P-256 key pair under `id`. */
export function signingKey(id: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { id, privateKey, pem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/** The two headers GitHub sends, for `body` signed by `key`. */
export function signed(body: string | Uint8Array, key: SigningKey): Record<string, string> {
  const signature = sign('sha256', typeof body === 'string' ? Buffer.from(body) : body, key.privateKey).toString('base64');
  return { 'Github-Public-Key-Identifier': key.id, 'Github-Public-Key-Signature': signature, 'content-type': 'application/json' };
}

/** The keys document for `keys`, as GitHub publishes it. */
export function keysDocument(...keys: { id: string; pem: string }[]): {
  public_keys: { key_identifier: string; key: string; is_current: boolean }[];
} {
  return { public_keys: keys.map((k, i) => ({ key_identifier: k.id, key: k.pem, is_current: i === keys.length - 1 })) };
}

/** The loopback stand-in for api.github.com/meta/public_keys/secret_scanning. */
export interface KeysServer {
  url: string;
  /** Requests received so far. */
  hits: number;
  /** The Authorization header of the last request. */
  lastAuthorization: string | undefined;
  /** What it answers now: the document, a status, a body of its own, or silence (no answer at all). */
  serve(what: { document: unknown } | { status: number } | { raw: string } | { hang: true }): void;
  close(): Promise<void>;
}

export async function keysServer(initial: unknown): Promise<KeysServer> {
  let what: { document: unknown } | { status: number } | { raw: string } | { hang: true } = { document: initial };
  const state = { hits: 0, lastAuthorization: undefined as string | undefined };
  const server: Server = createServer((req, res) => {
    state.hits++;
    state.lastAuthorization = req.headers.authorization;
    if ('hang' in what) return;
    if ('status' in what) return void res.writeHead(what.status).end('{}');
    const text = 'raw' in what ? what.raw : JSON.stringify(what.document);
    res.writeHead(200, { 'content-type': 'application/json' }).end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/meta/public_keys/secret_scanning`;
  return {
    url,
    get hits() {
      return state.hits;
    },
    get lastAuthorization() {
      return state.lastAuthorization;
    },
    serve(next) {
      what = next;
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
