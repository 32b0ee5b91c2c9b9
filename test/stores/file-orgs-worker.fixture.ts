/**
 * A child process for test/stores/file-orgs.test.ts: sets its own org's policy
 * and opens its own org's entry on one shared token, as a concurrent `svc org`
 * command would. Usage: node --import tsx file-orgs-worker.fixture.ts <dir> <worker>
 */
import { FileTokenStore } from '../../src/stores';
import { NOW } from '../support/clock';

const [dir, workerArg] = process.argv.slice(2);
const org = `org${Number(workerArg)}`;
const store = new FileTokenStore(dir as string, { lockTimeoutMs: 60_000 });
await store.setPolicy({
  org,
  maxLifetimeDays: 30,
  requireApproval: true,
  allowGlobal: false,
  requireAllowedIps: false,
  exempt: [],
  updatedBy: 'alice',
  updatedAt: NOW,
});
const entry = {
  org,
  status: 'approved' as const,
  justification: null,
  requestedAt: null,
  reason: null,
  decidedBy: 'alice',
  decidedAt: NOW,
};
const changed = await store.updateOrgAccess([{ id: 'shared', from: ['none'], entry }]);
process.stdout.write(JSON.stringify(changed));
