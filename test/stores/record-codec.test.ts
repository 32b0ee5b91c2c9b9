/**
 * The store codec reads a record's scopes with the one scope validator: the same bad scopes get the
 * same issues from normalizeScopes, compileLayer and the codec (paths under `scopes`).
 */
import { describe, it, expect } from 'vitest';
import { compileLayer } from '../../src/core/policy';
import { normalizeScopes, type Scope } from '../../src/core/scopes';
import { toEntry } from '../../src/stores/record-codec';
import { issuesOf } from '../support/errors';

describe('one scope validator, one issue model', () => {
  const catchIssues = (fn: () => unknown) => issuesOf(fn).map((i) => ({ code: i.code, path: i.path, pathText: i.pathText }));

  it('the same bad input gets the same issues from normalizeScopes, compileLayer and the store codec', () => {
    const bad = [
      [{ permissions: ['repo:read'], foo: 1 }],
      [{ resource: 'acme/web', permissions: ['repo:read', 'nope'] }],
      [{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/{a,b}'] }],
      [{ resource: 'acme/web', permissions: ['repo:read'], 'a b': 1 }],
    ] as unknown as Scope[][];
    for (const scopes of bad) {
      const viaNormalize = catchIssues(() => normalizeScopes(scopes));
      expect(catchIssues(() => compileLayer(scopes))).toEqual(viaNormalize);
      const record = {
        id: 't',
        kind: 'pat',
        ownerId: 'u',
        name: 'n',
        description: null,
        scopes,
        parentId: null,
        createdAt: new Date(0),
        expiresAt: new Date(1000),
        revokedAt: null,
        committerIdentity: null,
      };
      const viaCodec = catchIssues(() => toEntry(record, 'date'));
      expect(viaCodec.map((i) => ({ ...i, path: i.path.slice(1) }))).toEqual(
        viaNormalize
          .map((i) => ({ ...i, pathText: `scopes${i.pathText.startsWith('[') ? '' : '.'}${i.pathText}` }))
          .map((i) => ({ ...i, path: i.path })),
      );
    }
    expect(catchIssues(() => normalizeScopes(bad[0] as Scope[]))[0]).toEqual({
      code: 'unrecognized_keys',
      path: [0, 'foo'],
      pathText: '[0].foo',
    });
    expect(catchIssues(() => normalizeScopes(bad[3] as Scope[]))[0]?.path).toEqual([0, 'a b']);
  });
});
