/**
 * Attack: the GitHub handler ignored each match's `type`, so a match GitHub
 * sent under a type this service never registered (another partner's pattern
 * on a shared URL, an organization's over-broad custom pattern) revoked one of
 * our tokens all the same. Only the types given as `tokenTypes` (those
 * registered with GitHub) are judged; any other match is not looked up,
 * revokes nothing, and is labelled `false_positive`. Real HTTP, requests
 * signed as GitHub signs them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubSecretScanningHandler } from '../../src/leaks';
import { MemoryTokenStore } from '../../src/stores';
import { keysDocument, signed, signingKey, type SigningKey } from './github-play';
import { leakedEvents, nodeServer, world, type Running, type World } from './servers';

const PATH = '/hooks/github/secret-scanning';
const URL_FOUND = 'https://github.com/octocat/app/blob/1a2b/.env';

describe('GitHub matches of a type not registered here revoke nothing', () => {
  let github: SigningKey;
  let w: World;
  let server: Running;
  beforeAll(async () => {
    github = signingKey('4fe6b016179b74078ade7581abf4e84fb398c6fae4fb973972235b84fcd70ca3');
    w = await world(new MemoryTokenStore());
    const h = githubSecretScanningHandler(w.auth, { tokenTypes: ['acme_svc_pat', 'acme_svc_session'], keys: keysDocument(github) });
    server = await nodeServer((req, res) => h.node(req, res));
  });
  afterAll(async () => {
    await server.close();
    await Promise.all(server.calls);
  });

  const report = async (matches: { token: string; type: string }[]): Promise<{ status: number; body: unknown }> => {
    const body = JSON.stringify(matches.map((m) => ({ ...m, url: URL_FOUND, source: 'content' })));
    const res = await fetch(`${server.url}${PATH}`, { method: 'POST', headers: signed(body, github), body });
    return { status: res.status, body: await res.json() };
  };

  it('an active token reported under another type stays active and is labelled false_positive; under a registered type it is revoked', async () => {
    const api = w.auth.client(await w.auth.principalFor('alice')).token;
    const { token, info } = await api.create({ name: 'in-public' });
    const other = await report([
      { token, type: 'other_partner_key' },
      { token, type: 'ACME_SVC_PAT' }, // type names are compared exactly
    ]);
    expect(other.status).toBe(200);
    expect(other.body).toEqual([
      expect.objectContaining({ token_type: 'other_partner_key', label: 'false_positive' }),
      expect.objectContaining({ token_type: 'ACME_SVC_PAT', label: 'false_positive' }),
    ]);
    await expect(w.auth.authenticate(token)).resolves.toMatchObject({ userId: 'alice' });
    await w.auth.flush();
    expect(leakedEvents(w.events)).toHaveLength(0);

    const ours = await report([
      { token, type: 'acme_svc_session' },
      { token, type: 'other_partner_key' },
    ]);
    expect(ours.body).toEqual([
      expect.objectContaining({ token_type: 'acme_svc_session', label: 'true_positive' }),
      expect.objectContaining({ token_type: 'other_partner_key', label: 'false_positive' }),
    ]);
    await expect(w.auth.authenticate(token)).rejects.toMatchObject({ reason: 'revoked' });
    await w.auth.flush();
    expect(leakedEvents(w.events).map((e) => e.token.id)).toEqual([info.id]);
  });
});
