/**
 * Org governance in the file store (issue 30): org access lives on the records in
 * tokens.json, policies in org-policies.json beside it, each changed under its
 * lock (several processes lose nothing), and a hand-edited bad policy fails
 * closed naming the file.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/errors';
import { FileTokenStore, type OrgPolicyRecord } from '../../src/stores';
import { NOW } from '../support/clock';
import { rejection } from '../support/errors';
import { record } from '../support/record';

const policy: OrgPolicyRecord = {
  org: 'acme',
  maxLifetimeDays: 90,
  requireApproval: true,
  allowGlobal: true,
  requireAllowedIps: false,
  exempt: ['deploy-bot'],
  updatedBy: 'alice',
  updatedAt: NOW,
};

describe('FileTokenStore governance', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-orgs-'));
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('policies and org access persist beside the records, read afresh by another instance', async () => {
    const a = new FileTokenStore(home);
    expect(await a.readPolicies()).toEqual({ version: '0', policies: [] });
    await a.insert(record({ id: 't1' }), NOW);
    expect(await a.setPolicy(policy)).toBeNull();
    const entry = {
      org: 'acme',
      status: 'pending' as const,
      justification: 'ci',
      requestedAt: NOW,
      reason: null,
      decidedBy: null,
      decidedAt: null,
    };
    expect(await a.updateOrgAccess([{ id: 't1', from: ['none'], entry }])).toEqual(['t1']);
    const b = new FileTokenStore(home);
    expect(await b.readPolicies()).toEqual({ version: '1', policies: [policy] });
    expect((await b.readChain('t1'))?.[0]?.orgAccess).toEqual([entry]);
    expect((await b.listForOrg('acme')).map((r) => r.id)).toEqual(['t1']);
    expect(await b.setPolicy({ ...policy, maxLifetimeDays: null })).toEqual(policy);
    expect((await a.readPolicies()).version).toBe('2');
  });

  it('a hand-edited policy (400 days) fails closed with an error naming the file', async () => {
    await new FileTokenStore(home).setPolicy(policy);
    const file = join(home, 'org-policies.json');
    const data = JSON.parse(await readFile(file, 'utf8')) as { policies: Record<string, unknown>[] };
    (data.policies[0] as Record<string, unknown>).maxLifetimeDays = 400;
    await writeFile(file, JSON.stringify(data));
    const err = await rejection(new FileTokenStore(home).readPolicies());
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).toContain(file);
    // The records are not the policies' file: they still read, and the request path refuses on the policies.
    expect(await new FileTokenStore(home).readChain('t1')).toBeNull();
  });

  it('C3: 6 processes setting policies and changing one token lose nothing', async () => {
    await new FileTokenStore(home).insert(record({ id: 'shared' }), NOW);
    const script = fileURLToPath(new URL('./file-orgs-worker.fixture.ts', import.meta.url));
    const cwd = fileURLToPath(new URL('../..', import.meta.url));
    const outs = await Promise.all(
      Array.from(
        { length: 6 },
        (_, w) =>
          new Promise<string>((resolve, reject) => {
            const child = spawn(process.execPath, ['--import', 'tsx', script, home, String(w)], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
            let out = '';
            let err = '';
            child.stdout.on('data', (d: Buffer) => (out += d.toString()));
            child.stderr.on('data', (d: Buffer) => (err += d.toString()));
            child.on('error', reject);
            child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`worker ${w} exited ${code}: ${err}`))));
          }),
      ),
    );
    expect(outs.every((o) => o === '["shared"]')).toBe(true);
    const store = new FileTokenStore(home);
    const set = await store.readPolicies();
    expect(set.version).toBe('6');
    expect(set.policies.map((p) => p.org).sort()).toEqual(['org0', 'org1', 'org2', 'org3', 'org4', 'org5']);
    expect((await store.readChain('shared'))?.[0]?.orgAccess?.map((e) => e.org).sort()).toEqual(set.policies.map((p) => p.org).sort());
  });
});
