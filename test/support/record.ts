/**
 * The one TokenRecord builder: an active, unscoped PAT of alice named `ci`,
 * created at the pinned instant and expiring thirty days later, never used.
 */
import { randomBytes } from 'node:crypto';
import type { TokenRecord } from '../../src/stores';
import { LATER, NOW } from './clock';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const RUN = randomBytes(4).toString('hex');
let counter = 0;

/** A record with every field set, `over` applied; the default id is unique to the run. */
export function record(over: Partial<Mutable<TokenRecord>> = {}): TokenRecord {
  counter++;
  return {
    id: `rec-${RUN}-${counter}`,
    kind: 'pat',
    ownerId: 'alice',
    name: 'ci',
    description: null,
    scopes: null,
    parentId: null,
    createdAt: new Date(NOW),
    expiresAt: new Date(LATER),
    revokedAt: null,
    committerIdentity: null,
    lastUsedAt: null,
    ...over,
  };
}

let named = 0;
/** {@link record} with a name of its own, so records never collide on T7 (unique active names) unless a test means them to. */
export function namedRecord(over: Partial<Mutable<TokenRecord>> = {}): TokenRecord {
  return record({ name: `t${++named}`, ...over });
}
