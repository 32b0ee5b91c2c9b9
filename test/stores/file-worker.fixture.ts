/**
 * A child process for test/stores/file.test.ts: changes one SVC_HOME from a
 * separate process, as a concurrent `svc` command would.
 * Usage: node --import tsx file-worker.fixture.ts <dir> <worker> <count>
 */
import { FileMembershipStore, FileTokenStore } from '../../src/stores';
import { NOW as now } from '../support/clock';
import { record } from '../support/record';

const [dir, workerArg, countArg] = process.argv.slice(2);
const worker = Number(workerArg);
const count = Number(countArg);
const options = { lockTimeoutMs: 60_000 };
const tokens = new FileTokenStore(dir as string, options);
const members = new FileMembershipStore(dir as string, options);

const results: string[] = [];
// Every worker competes for one name; exactly one process may win it.
results.push(await tokens.insert(record({ id: `w${worker}-shared`, ownerId: 'contended', name: 'shared' }), now));
for (let k = 0; k < count; k++) {
  results.push(await tokens.insert(record({ id: `w${worker}-${k}`, ownerId: `owner${worker % 3}`, name: `w${worker}-${k}` }), now));
  await members.set(`user${worker}`, `org${k}`, 'editor');
}
process.stdout.write(JSON.stringify(results));
