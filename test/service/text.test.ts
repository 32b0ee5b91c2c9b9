/**
 * Defect 6: store-specific input handling. A NUL in a description passed
 * validation and then failed in PostgreSQL (503, not 400); a lone surrogate was
 * stored as U+FFFD there but kept elsewhere. The service now refuses both with
 * a ValidationError before any store sees them, the same for every store.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileTokenStore, MemoryTokenStore, type TokenStore } from '../../src/stores';
import { checkStoredText, isWellFormedText } from '../../src/service/manage/stored-text';
import { testAuth } from '../support/auth';
import { rejection } from '../support/errors';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const stores: [string, () => Promise<TokenStore>][] = [
  ['memory', async () => new MemoryTokenStore()],
  [
    'file',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'svc-text-'));
      dirs.push(dir);
      return new FileTokenStore(join(dir, 'home'));
    },
  ],
];

describe.each(stores)('stored text on the %s store', (_name, make) => {
  it('NUL in a description is a ValidationError (400), never a store failure', async () => {
    const { auth, store } = await testAuth({ tokens: await make() });
    const api = auth.client(await auth.authenticate(await auth.issueSession('alice'))).token;
    for (const description of ['a\u0000b', 'bell\u0007', 'esc\u001b[31m', 'c1\u0085', 'del\u007f', 'cr\r']) {
      expect(await rejection(api.create({ name: 'ci', description }))).toMatchObject({
        code: 'validation',
        issues: [{ pathText: 'description' }],
      });
    }
    expect((await store.listByOwner('alice')).filter((r) => r.kind !== 'session')).toEqual([]);
  });

  it('lone surrogates in a description or a user id are a ValidationError on every store', async () => {
    const { auth, store } = await testAuth({ tokens: await make() });
    const api = auth.client(await auth.authenticate(await auth.issueSession('alice'))).token;
    for (const description of ['\ud800', 'x\udc00y', 'end\udbff', '\udfff\ud800']) {
      expect(await rejection(api.create({ name: 'ci', description }))).toMatchObject({ code: 'validation' });
    }
    expect(await rejection(auth.issueSession('al\ud800ice'))).toMatchObject({ code: 'validation' });
    expect((await store.listByOwner('alice')).filter((r) => r.kind !== 'session')).toEqual([]);
  });

  it('control: tabs, line feeds and well-formed astral characters are kept exactly', async () => {
    const { auth } = await testAuth({ tokens: await make() });
    const api = auth.client(await auth.authenticate(await auth.issueSession('alice'))).token;
    const description = 'line one\n\tline two: café 😀 \u{10FFFF}';
    const { info } = await api.create({ name: 'ci', description });
    expect(info.description).toBe(description);
    expect((await api.get('ci')).description).toBe(description);
  });
});

describe('checkStoredText', () => {
  it('single-line text refuses tab and line feed too; well-formedness is exact', () => {
    expect(() => checkStoredText('a\tb', 'x', false)).toThrow(expect.objectContaining({ code: 'validation' }));
    expect(checkStoredText('a\tb', 'x', true)).toBe('a\tb');
    expect(isWellFormedText('\ud83d\ude00')).toBe(true);
    expect(isWellFormedText('\ude00\ud83d')).toBe(false);
  });
});
