import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expiryText, lastUsedText, relativeText, tokenTable } from '../../src/app/cli';
import type { TokenInfo } from '../../src/service';
import { svc, tempHome } from './helpers';
import { T0 as NOW } from '../support/clock';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('relative times (svc token list, svc token get)', () => {
  it.each([
    [NOW + 3.5 * DAY, 'in 4 days'],
    [NOW + DAY, 'in 1 day'],
    [NOW + 5 * HOUR + 10, 'in 5 hours'],
    [NOW + 90_000, 'in 2 minutes'],
    [NOW + 89_999, 'in 1 minute'],
    [NOW + 4000, 'in 4 seconds'],
    [NOW - 2 * DAY, '2 days ago'],
  ])('%s is %j', (at, text) => {
    expect(relativeText(new Date(at), NOW)).toBe(text);
  });

  // The rule: the largest unit the span holds once, the count rounded to the nearest whole, halves up.
  it.each([
    ['a 30-day token read 1 ms after it was made', NOW + 30 * DAY - 1, 'in 30 days'],
    ['a 30-day token read 1 s after it was made', NOW + 30 * DAY - 1000, 'in 30 days'],
    ['29.5 days (a half rounds up)', NOW + 29.5 * DAY, 'in 30 days'],
    ['just under 29.5 days', NOW + 29.5 * DAY - 1, 'in 29 days'],
    ['exactly 1 day', NOW + DAY, 'in 1 day'],
    ['just under 1 day (hours, not days)', NOW + DAY - 1, 'in 24 hours'],
    ['1.5 days', NOW + 1.5 * DAY, 'in 2 days'],
    ['just under 1.5 days', NOW + 1.5 * DAY - 1, 'in 1 day'],
    ['just under 1 hour', NOW + HOUR - 1, 'in 60 minutes'],
    ['half a second', NOW + 500, 'in 1 second'],
    ['under half a second', NOW + 499, 'in 0 seconds'],
    ['2.5 days ago', NOW - 2.5 * DAY, '3 days ago'],
    ['just under 2.5 days ago', NOW - 2.5 * DAY + 1, '2 days ago'],
  ])('boundary: %s is %j', (_what, at, text) => {
    expect(relativeText(new Date(at), NOW)).toBe(text);
  });

  it('the shown count of days is never more than half a day from the true span (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: DAY, max: 400 * DAY }), fc.boolean(), (span, past) => {
        const text = relativeText(new Date(past ? NOW - span : NOW + span), NOW);
        const m = /^(?:in )?(\d+) days?(?: ago)?$/.exec(text);
        expect(m, text).not.toBeNull();
        expect(Math.abs(Number(m?.[1]) * DAY - span)).toBeLessThanOrEqual(DAY / 2);
        expect(text.startsWith('in ')).toBe(!past);
      }),
    );
  });

  it('expiry says "expired … ago" once past; last use says "never" when never recorded', () => {
    expect(expiryText({ expiresAt: new Date(NOW - 2 * DAY) }, NOW)).toBe('expired 2 days ago');
    expect(expiryText({ expiresAt: new Date(NOW) }, NOW)).toMatch(/^expired /); // T4: expired once now >= expiresAt
    expect(expiryText({ expiresAt: new Date(NOW + 3 * DAY) }, NOW)).toBe('in 3 days');
    expect(expiryText({ expiresAt: new Date(NOW + 30 * DAY - 1) }, NOW)).toBe('in 30 days');
    expect(lastUsedText({ lastUsedAt: null }, NOW)).toBe('never');
    expect(lastUsedText({ lastUsedAt: new Date(NOW - 3 * HOUR) }, NOW)).toBe('3 hours ago');
  });

  it('a hostile token name with terminal escapes is cleaned in the table', () => {
    const info: TokenInfo = {
      id: 'x',
      name: 'a\u001b[2Jb',
      description: null,
      status: 'active',
      scopes: null,
      createdAt: new Date(NOW),
      expiresAt: new Date(NOW + DAY),
      revokedAt: null,
      committerIdentity: null,
      parentId: null,
      lastUsedAt: null,
      lastUsed: null,
      usedFrom: [],
      allowedIps: null,
      boundKey: null,
      orgAccess: [],
    };
    expect(tokenTable([info], false, NOW)).not.toContain('\u001b');
  });
});

describe('svc token list: last used, relative expiry, --expiring, the notice', { timeout: 120_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  const at = (iso: string): Record<string, string> => ({ SVC_ALLOW_TEST_CLOCK: '1', SVC_NOW: iso });
  let ci = '';

  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    expect((await svc(home, ['member', 'set', '-u', 'alice', '-r', 'acme', '--role', 'owner'])).code).toBe(0);
    expect((await svc(home, ['auth', 'login', '--user', 'alice', '--expires', '30d'], at('2030-01-01T00:00:00Z'))).code).toBe(0);
    const created = await svc(
      home,
      ['token', 'create', '-n', 'ci', '--scope', 'acme/web=repo:read', '--expires', '3d'],
      at('2030-01-01T00:00:00Z'),
    );
    expect(created.code).toBe(0);
    ci = created.stdout.trim();
    expect(
      (await svc(home, ['token', 'create', '-n', 'docs', '--scope', 'acme/web=repo:read', '--expires', '30d'], at('2030-01-01T00:00:00Z')))
        .code,
    ).toBe(0);
  });
  afterAll(() => cleanup());

  it('a PAT used through SVC_TOKEN shows its last use; the table shows expiry relative to now; one notice on stderr', async () => {
    const used = await svc(home, ['token', 'list'], { ...at('2030-01-01T02:00:00Z'), SVC_TOKEN: ci });
    expect(used.code).toBe(0);
    const r = await svc(home, ['token', 'list'], at('2030-01-01T05:00:00Z'));
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+EXPIRES\s+LAST USED\s+SCOPES$/);
    expect(lines[1]).toMatch(/^ci\s+active\s+in 3 days\s+3 hours ago\s+acme\/web=repo:read$/);
    expect(lines[2]).toMatch(/^docs\s+active\s+in 30 days\s+never\s+/); // 29 days 19 hours, rounded
    const notices = r.stderr.split('\n').filter((l) => l.startsWith('svc: notice:'));
    expect(notices).toEqual(['svc: notice: 1 token expires within 7 days: ci (in 3 days)']);
    expect(r.stderr).not.toContain(ci);
  });

  it('a 30-day token read a moment after it was made lists as "in 30 days" (list and get)', async () => {
    const r = await svc(home, ['token', 'list'], at('2030-01-01T00:00:01Z'));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^docs\s+active\s+in 30 days\s+never\s+/m);
    const get = await svc(home, ['token', 'get', '-n', 'docs'], at('2030-01-01T00:00:01Z'));
    expect(get.stdout).toMatch(/^expires\s+2030-01-31T00:00:00Z \(in 30 days\)$/m);
  });

  it('--expiring 7d filters; --json carries lastUsedAt as ISO 8601 (C4)', async () => {
    const r = await svc(home, ['token', 'list', '--expiring', '7d', '--json'], at('2030-01-01T05:00:00Z'));
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as { name: string; lastUsedAt: string | null }[];
    expect(list.map((t) => t.name)).toEqual(['ci']);
    expect(list[0]?.lastUsedAt).toBe('2030-01-01T02:00:00.000Z');
    const all = JSON.parse((await svc(home, ['token', 'list', '--json'], at('2030-01-01T05:00:00Z'))).stdout) as {
      name: string;
      lastUsedAt: string | null;
    }[];
    expect(all.find((t) => t.name === 'docs')?.lastUsedAt).toBeNull();
  });

  it('no notice when nothing expires within 7 days; an expired token reads "expired … ago"', async () => {
    const r = await svc(home, ['token', 'list'], at('2030-01-06T00:00:00Z'));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ci\s+expired\s+expired 2 days ago/);
    expect(r.stderr).not.toContain('notice');
  });

  it('C5: --expiring with a bad duration is a usage error (exit 2, svc: prefix)', async () => {
    for (const bad of ['7h', '0d', 'soon']) {
      const r = await svc(home, ['token', 'list', '--expiring', bad], at('2030-01-01T05:00:00Z'));
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^svc: /);
    }
  });
});
