/**
 * Issue 18, item 7: every refusal of a credential is an `auth.failed` event,
 * including those made before any token is read (no header, another scheme,
 * two tokens), and an expired token whose signature verified is reported with
 * its id and user, like a revoked one.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../src/errors';
import type { AuthEvent } from '../../src/service';
import { testAuth } from '../support/auth';
import { DAY_MS } from '../support/clock';
import { rejection } from '../support/errors';

function collector() {
  const events: AuthEvent[] = [];
  return { events, onEvent: (e: AuthEvent): void => void events.push(e) };
}

const UNKNOWN = { kind: 'unknown', userId: null, tokenId: null, tokenName: null };

/** A node request as `authenticateRequest` reads it: headers, and rawHeaders as sent. */
function nodeRequest(raw: string[]): IncomingMessage {
  const headers: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) headers[(raw[i] as string).toLowerCase()] ??= raw[i + 1] as string;
  return { headers, rawHeaders: raw } as unknown as IncomingMessage;
}

describe('auth.failed for refusals before any token is read (issue 18, item 7)', () => {
  it('no header, Basic, two tokens in one header, a repeated header: one auth.failed each, actor unknown', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const fetchRequest = (authorization?: string): Request =>
      new Request('http://127.0.0.1/api/whoami', authorization === undefined ? {} : { headers: { authorization } });
    const cases: [Request | IncomingMessage, string][] = [
      [fetchRequest(), 'missing'],
      [fetchRequest('Basic dXNlcjpwYXNz'), 'malformed'],
      [fetchRequest('Bearer one two'), 'malformed'],
      [fetchRequest('Bearer one, Bearer two'), 'malformed'],
      [nodeRequest([]), 'missing'],
      [nodeRequest(['Authorization', 'Basic dXNlcjpwYXNz']), 'malformed'],
      [nodeRequest(['Authorization', 'Bearer a', 'authorization', 'Bearer b']), 'malformed'],
      [{} as IncomingMessage, 'malformed'],
    ];
    for (const [req, reason] of cases) {
      const err = await rejection(s.auth.authenticateRequest(req));
      expect(err).toBeInstanceOf(AuthenticationError);
      expect((err as AuthenticationError).reason).toBe(reason);
    }
    await s.auth.flush();
    expect(c.events).toEqual(cases.map(([, reason]) => ({ type: 'auth.failed', at: expect.any(Date), actor: UNKNOWN, reason })));
  });

  it('a good header still authenticates and adds no event', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const session = await s.auth.issueSession('alice');
    const p = await s.auth.authenticateRequest(new Request('http://127.0.0.1/', { headers: { authorization: `Bearer ${session}` } }));
    expect(p.userId).toBe('alice');
    await s.auth.flush();
    // Only the session's own creation: authenticating it adds nothing.
    expect(c.events.map((e) => e.type)).toEqual(['token.created']);
  });
});

describe('auth.failed for an expired token that is still in use (issue 18, item 7)', () => {
  it('carries the token id and user, on the event and on the error, with and without a cached signature', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token, info } = await s.auth.client(me).token.create({ name: 'ci', expiresIn: '1d' });
    await s.auth.authenticate(token); // its signature is now cached
    s.clock.advance(2 * DAY_MS);
    // A second instance on the same store has never seen the token: the full verify path.
    const cold = await testAuth({ tokens: s.store, onEvent: c.onEvent });
    cold.clock.advance(2 * DAY_MS);
    for (const auth of [s.auth, cold.auth]) {
      const err = await rejection(auth.authenticate(token));
      expect(err).toMatchObject({ code: 'authentication', reason: 'expired', tokenId: info.id });
      await auth.flush();
    }
    const failed = c.events.filter((e) => e.type === 'auth.failed');
    expect(failed).toHaveLength(2);
    for (const e of failed) {
      expect(e).toMatchObject({ reason: 'expired', actor: { kind: 'pat', userId: 'alice', tokenId: info.id, tokenName: null } });
    }
    expect(JSON.stringify(c.events)).not.toContain(token.split('.')[2]);
  });

  it('an expired or revoked session is reported with its user and its id (sessions have records)', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const session = await s.auth.issueSession('alice', { expiresIn: '1h' });
    const id = (await s.auth.authenticate(session)).tokenId as string;
    const revoked = await s.auth.issueSession('alice');
    const revokedId = (await s.auth.authenticate(revoked)).tokenId as string;
    await s.auth.revokeToken(revokedId);
    s.clock.advance(2 * 3600_000);
    expect(await rejection(s.auth.authenticate(session))).toMatchObject({ reason: 'expired', tokenId: id });
    expect(await rejection(s.auth.authenticate(revoked))).toMatchObject({ reason: 'revoked', tokenId: revokedId });
    await s.auth.flush();
    expect(c.events.filter((e) => e.type === 'auth.failed')).toEqual([
      expect.objectContaining({ reason: 'expired', actor: { kind: 'session', userId: 'alice', tokenId: id, tokenName: null } }),
      expect.objectContaining({ reason: 'revoked', actor: { kind: 'session', userId: 'alice', tokenId: revokedId, tokenName: null } }),
    ]);
  });

  it('a forged signature on an expired token still reports nothing about it', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token } = await s.auth.client(me).token.create({ name: 'ci', expiresIn: '1d' });
    s.clock.advance(2 * DAY_MS);
    const forged = `${token.slice(0, -4)}${token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const err = await rejection(s.auth.authenticate(forged));
    expect((err as AuthenticationError).tokenId).toBeUndefined();
    await s.auth.flush();
    expect(c.events.filter((e) => e.type === 'auth.failed').map((e) => e.actor)).toEqual([UNKNOWN]);
  });
});
