/**
 * A hot trusted issuer's access token beside a hot PAT (issue 20): one `Auth`
 * that trusts an identity provider (a node:http JWKS on loopback, keys fetched
 * once), one token of each kind authenticated again and again. The issuer
 * token is served by the verified-token cache, then the roles and the grant
 * as for any session; the PAT by the verified-signature cache, then its record
 * chain and the roles. The goal: the issuer token costs no more than the PAT.
 *
 *   npx tsx bench/issuers.bench.ts   (or: npm run bench -- issuers)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createAuth } from '../src/service/auth';
import type { Principal } from '../src/core/policy/subject';
import { MemoryTokenStore } from '../src/stores/memory/store';
import { generateKeyRing } from '../src/tokens/keys/keyring';
import { interleaved, ratioTable } from './report';

const PAT = 'svc-auth authenticate (PAT, cached signature, record chain from memory)';
const ISSUER = 'svc-auth authenticate (trusted issuer ES256 token, cached, roles from memory)';
const NARROWED = 'svc-auth authenticate (trusted issuer token with scope repo:read, cached)';
const AUDIENCE = 'https://api.svc.bench';

/** A JWKS on loopback and a signer of access tokens for it. */
async function identityProvider(): Promise<{
  issuer: string;
  jwksUri: string;
  sign: (claims: Record<string, unknown>) => Promise<string>;
  close: () => void;
}> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' }] });
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sign = (claims: Record<string, unknown>): Promise<string> =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'bench' }).sign(privateKey);
  return { issuer, jwksUri: `${issuer}/jwks`, sign, close: () => server.close() };
}

async function hot(): Promise<Map<string, number>> {
  const idp = await identityProvider();
  try {
    const auth = createAuth({
      issuer: 'https://svc.bench',
      keys: await generateKeyRing(),
      tokens: new MemoryTokenStore(),
      members: { rolesOf: () => ({ orgs: { acme: 'editor' } }) },
      // The IdP's subjects are this service's user ids, as a company IdP's often are (else ids are derived per issuer).
      trustedIssuers: [{ issuer: idp.issuer, audience: AUDIENCE, jwksUri: idp.jwksUri, userId: (c) => String(c['sub']) }],
    });
    const me: Principal = await auth.authenticate(await auth.issueSession('alice'));
    const { token: pat } = await auth
      .client(me)
      .token.create({ name: 'bench', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: idp.issuer, aud: AUDIENCE, sub: 'alice', iat: now, exp: now + 3600 };
    const issued = await idp.sign(claims);
    const narrowed = await idp.sign({ ...claims, scope: 'openid repo:read' });
    // Each is checked once, the same way, before it is timed: the same user, allowed to read.
    for (const t of [pat, issued, narrowed]) {
      const p = await auth.authenticate(t);
      if (p.userId !== 'alice' || !auth.authorize(p, 'acme/web', 'repo:read').allowed) throw new Error('bench tokens disagree');
    }
    return await interleaved([
      { name: PAT, fn: () => auth.authenticate(pat) },
      { name: ISSUER, fn: () => auth.authenticate(issued) },
      { name: NARROWED, fn: () => auth.authenticate(narrowed) },
    ]);
  } finally {
    idp.close();
  }
}

/**
 * Run the benchmark and return its markdown section.
 *
 * @example
 * ```ts
 * console.log(await run());
 * ```
 */
export async function run(): Promise<string> {
  const times = await hot();
  const ratio = (times.get(ISSUER) as number) / (times.get(PAT) as number);
  return [
    '## Service: a trusted issuer token beside a PAT',
    '',
    'HOT: one token of each kind authenticated again and again by one `Auth` that trusts an identity provider',
    '(its JWKS fetched once from loopback). The issuer token comes from the verified-token cache, then the roles',
    'are read and the grant found, as for any session; the PAT comes from the verified-signature cache, then its',
    'record chain is read from the memory store (T5). Engines take turns; each figure is its best round.',
    '',
    ratioTable([PAT, ISSUER, NARROWED], [{ title: 'per call', times, base: PAT }], 'PAT'),
    '',
    `Goal (issue 20): a hot trusted-issuer token costs no more than a hot PAT: ${ratio.toFixed(2)} × (${ratio <= 1.05 ? 'met' : 'missed'}).`,
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(await run());
}
