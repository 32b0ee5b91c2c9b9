/**
 * Issue 18, item 6: audit events carry request input (an `access.denied`
 * resource and thing name, a `revokeToken` id) that can hold a token pasted in
 * the wrong place. The hook sees every such run as `[redacted]`, as the logs do;
 * ids and names that hold no token are delivered as they are.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reportDenied, type AuthEvent } from '../../src/service';
import { redactEvent } from '../../src/service/events/redact';
import { testAuth } from '../support/auth';
import { record } from '../support/record';
import { T0 } from '../support/clock';
import { aToken, leaks } from '../support/token';

/** What a token becomes in output: the text users see in logs and events. */
const REDACTED = '[redacted]';

function collector() {
  const events: AuthEvent[] = [];
  return { events, onEvent: (e: AuthEvent): void => void events.push(e) };
}

/** The ways a token reaches a request path: as it is, with dots escaped once or twice, with `/` for dots. */
function spellings(token: string): string[] {
  return [token, token.replaceAll('.', '%2E'), token.replaceAll('.', '%252E'), token.replaceAll('.', '/')];
}

describe('token values in audit events (issue 18, item 6)', () => {
  it('a PAT in a request path (GET /api/repos/<PAT>/x/head) reaches access.denied redacted, however it is spelt', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token } = await s.auth.client(me).token.create({ name: 'ci' });
    for (const spelled of spellings(token)) {
      const resource = `${spelled}/x`;
      const d = s.auth.authorize(me, resource, 'repo:read');
      expect(d).toEqual({ allowed: false, reason: 'invalid' });
      reportDenied(s.auth, me, resource, 'repo:read', 'invalid');
    }
    await s.auth.flush();
    const denied = c.events.filter((e) => e.type === 'access.denied');
    expect(denied).toHaveLength(4);
    for (const e of denied) {
      if (e.type !== 'access.denied') throw new Error(`unexpected ${e.type}`);
      expect(e.resource).toContain(REDACTED);
      expect(leaks(JSON.stringify(e), token)).toBe(false);
      // The rest of the event is intact.
      expect(e).toMatchObject({ permission: 'repo:read', reason: 'invalid', actor: { kind: 'session', userId: 'alice' } });
    }
  });

  it('a token in a thing name is redacted too', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const token = await aToken();
    reportDenied(s.auth, me, 'acme/web', 'repo:read', 'invalid', `Doc/${token}`);
    await s.auth.flush();
    const e = c.events.find((x) => x.type === 'access.denied');
    if (e?.type !== 'access.denied') throw new Error('expected access.denied');
    expect(e.thingName).toBe(`Doc/${REDACTED}`);
    expect(e.resource).toBe('acme/web');
    expect(leaks(JSON.stringify(c.events), token)).toBe(false);
  });

  it('a token id that begins with eyJ is delivered as it is: an id is not a token value', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const id = 'eyJhbGciOiJFZERTQSJ9abc'; // 22+ base64url characters, as a random id may be
    await s.store.insert(record({ id, name: 'odd' }), new Date(T0));
    await s.auth.revokeToken(id);
    await s.auth.flush();
    expect(c.events).toEqual([expect.objectContaining({ type: 'token.revoked', tokenId: id, revokedIds: [id] })]);
  });

  it('an event without anything token-shaped is handed over as the very object that was queued', () => {
    const e: AuthEvent = Object.freeze({
      type: 'access.denied',
      at: new Date(T0),
      actor: Object.freeze({ kind: 'pat', userId: 'alice', tokenId: 'eyJ0000000000000000000', tokenName: 'eyJname' }),
      resource: 'acme/web',
      permission: 'repo:read',
      thingName: 'Doc/a.b',
      reason: 'scope',
    });
    expect(redactEvent(e)).toBe(e);
  });

  it('property: whatever surrounds a token in any event string, the hook never sees a piece of it', async () => {
    const token = await aToken();
    const c = collector();
    const watched = await testAuth({ onEvent: c.onEvent });
    const me = await watched.auth.authenticate(await watched.auth.issueSession('alice'));
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        fc.constantFrom(...spellings(token)),
        fc.constantFrom('resource', 'thing'),
        async (before, after, spelled, where) => {
          c.events.length = 0;
          const text = `${before}${spelled}${after}`;
          if (where === 'resource') reportDenied(watched.auth, me, text, 'repo:read', 'invalid');
          else reportDenied(watched.auth, me, 'acme/web', 'repo:read', 'thing', text);
          await watched.auth.flush();
          expect(c.events).toHaveLength(1);
          expect(leaks(JSON.stringify(c.events), token)).toBe(false);
        },
      ),
      { numRuns: 100 },
    );
  });
});
