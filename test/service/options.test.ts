import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuth } from '../../src/service';
import { FileTokenStore, MemoryTokenStore, type TokenStore } from '../../src/stores';
import { generateKeyRing, type KeyRing } from '../../src/tokens';
import { pathsOf } from '../support/errors';

let dir: string;
let keys: KeyRing;
const members = { rolesOf: () => ({}) };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-options-'));
  keys = await generateKeyRing();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const build = (tokens: TokenStore, storeTimeoutMs?: number) =>
  createAuth({ issuer: 'https://svc.test', keys, members, tokens, ...(storeTimeoutMs === undefined ? {} : { storeTimeoutMs }) });

describe('storeTimeoutMs and the token store change budget (issue 13: a reported failure has no later effect)', () => {
  it('late write: a file store whose lock budget outlasts the service deadline is refused when createAuth builds', () => {
    const slow = new FileTokenStore(join(dir, 'slow'), { lockTimeoutMs: 10_000 });
    expect(slow.changeBudgetMs).toBe(10_000);
    expect(pathsOf(() => build(slow))).toEqual(['storeTimeoutMs']);
    expect(pathsOf(() => build(slow, 10_000))).toEqual(['storeTimeoutMs']);
  });

  it('a deadline above the budget, and the defaults (4 000 ms budget, 5 000 ms deadline), are accepted', () => {
    expect(() => build(new FileTokenStore(join(dir, 'slow2'), { lockTimeoutMs: 10_000 }), 10_001)).not.toThrow();
    const plain = new FileTokenStore(join(dir, 'default'));
    expect(plain.changeBudgetMs).toBe(4_000);
    expect(() => build(plain)).not.toThrow();
    expect(() => build(new MemoryTokenStore(), 1)).not.toThrow();
  });

  it('hostile store: a changeBudgetMs that is not a number, or a getter that throws, is a ValidationError, never a TypeError', () => {
    const base = new MemoryTokenStore();
    const store = (budget: PropertyDescriptor): TokenStore =>
      Object.defineProperty(
        {
          insert: base.insert.bind(base),
          readChain: base.readChain.bind(base),
          listByOwner: base.listByOwner.bind(base),
          revoke: base.revoke.bind(base),
        },
        'changeBudgetMs',
        budget,
      ) as TokenStore;
    expect(pathsOf(() => build(store({ value: 'soon' })))).toEqual(['tokens.changeBudgetMs']);
    expect(pathsOf(() => build(store({ value: -1 })))).toEqual(['tokens.changeBudgetMs']);
    expect(
      pathsOf(() =>
        build(
          store({
            get() {
              throw new TypeError('boom');
            },
          }),
        ),
      ),
    ).toEqual(['tokens.changeBudgetMs']);
  });
});
