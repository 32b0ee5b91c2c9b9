import type { TokenRecord } from '../../src/stores/types';

/** A pinned clock for store tests. */
export const NOW = new Date('2030-01-01T00:00:00Z');
export const LATER = new Date('2030-01-31T00:00:00Z');

/** An active, unscoped PAT record of alice named `ci`, with `over` applied. */
export function rec(over: Partial<TokenRecord> & { id: string }): TokenRecord {
  return {
    kind: 'pat', ownerId: 'alice', name: 'ci', description: null, scopes: null, parentId: null,
    createdAt: NOW, expiresAt: LATER, revokedAt: null, committerIdentity: null, ...over,
  };
}

/** The rejection reason of `p`; fails the test when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(() => { throw new Error('expected a rejection'); }, (err: unknown) => err);
}
