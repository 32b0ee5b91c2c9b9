/**
 * DPoP proofs for the `svc-bound` variant of the peer HTTP benchmark: the load
 * generator signs one proof per request (RFC 9449: `htm`, `htu`, a fresh `jti`,
 * `iat`, `ath` of the token) with node:crypto, before the timed window, so
 * that the client's signing does not limit what the server is measured at.
 * Not a benchmark itself; see bench/peers/run.ts.
 */
import { createHash, createPrivateKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { Request as LoadRequest } from 'autocannon';
import type { DpopKey } from './credentials';

const b64 = (v: string | Buffer): string => Buffer.from(v).toString('base64url');

/** Signs proofs for requests to `url` by the key of `dpop`. */
export class ProofSigner {
  private readonly key: KeyObject;
  private readonly header: string;

  constructor(
    dpop: DpopKey,
    private readonly url: string,
  ) {
    this.key = createPrivateKey(dpop.pkcs8);
    this.header = b64(JSON.stringify({ typ: 'dpop+jwt', alg: 'EdDSA', jwk: dpop.jwk }));
  }

  /** One proof for a GET of the URL with `token`. */
  proof(token: string): string {
    const ath = createHash('sha256').update(token).digest('base64url');
    const payload = { htm: 'GET', htu: this.url, jti: randomBytes(12).toString('base64url'), iat: Math.floor(Date.now() / 1000), ath };
    const input = `${this.header}.${b64(JSON.stringify(payload))}`;
    return `${input}.${b64(sign(null, Buffer.from(input), this.key))}`;
  }

  /**
   * autocannon requests cycling through `tokens`, each with the DPoP scheme and a proof taken from a
   * pool of `perToken` signed now. A pool that runs dry reuses its last proof: the server refuses the
   * replay, and the run fails on it (never a silent measurement of refusals).
   */
  requests(tokens: readonly string[], perToken: number): LoadRequest[] {
    return tokens.map((token) => {
      const pool = Array.from({ length: perToken }, () => this.proof(token));
      let next = 0;
      const headers = { authorization: `DPoP ${token}`, dpop: pool[0] as string };
      return {
        method: 'GET' as const,
        headers,
        setupRequest: (r: LoadRequest) => {
          const proof = pool[Math.min(next++, pool.length - 1)] as string;
          return { ...r, headers: { authorization: `DPoP ${token}`, dpop: proof } };
        },
      };
    });
  }
}
