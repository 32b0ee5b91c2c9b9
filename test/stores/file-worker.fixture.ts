/**
 * A child process for test/stores/file.test.ts: changes one SVC_HOME from a
 * separate process, as a concurrent `svc` command would.
 * Usage: node --import tsx file-worker.fixture.ts <dir> <worker> <count>
 */
import { FileMembershipStore, FileTokenStore } from '../../src/stores/file';

const [dir, workerArg, countArg] = process.argv.slice(2);
const worker = Number(workerArg);
const count = Number(countArg);
const now = new Date('2030-01-01T00:00:00Z');
const expiresAt = new Date('2030-02-01T00:00:00Z');
const options = { lockTimeoutMs: 60_000 };
const tokens = new FileTokenStore(dir as string, options);
const members = new FileMembershipStore(dir as string, options);

const base = { kind: 'pat' as const, description: null, scopes: null, parentId: null, createdAt: now, expiresAt, revokedAt: null, committerIdentity: null };
const results: string[] = [];
// Every worker competes for one name; exactly one process may win it.
results.push(await tokens.insert({ ...base, id: `w${worker}-shared`, ownerId: 'contended', name: 'shared' }, now));
for (let k = 0; k < count; k++) {
  results.push(await tokens.insert({ ...base, id: `w${worker}-${k}`, ownerId: `owner${worker % 3}`, name: `w${worker}-${k}` }, now));
  await members.set(`user${worker}`, `org${k}`, 'editor');
}
process.stdout.write(JSON.stringify(results));
