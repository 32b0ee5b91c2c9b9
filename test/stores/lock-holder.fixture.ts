/**
 * A child process for test/stores/file-lock-pause.test.ts: takes the token
 * store's lock, says "held" on stdout, then works for `holdMs` before writing
 * the copy it read plus one record, as a `svc` process paused mid-change would.
 * Usage: node --import tsx lock-holder.fixture.ts <dir> <holdMs>
 */
import { FileTokenStore } from '../../src/stores';
import { NOW } from '../support/clock';
import { record } from '../support/record';

const [dir, holdArg] = process.argv.slice(2);
const store = new FileTokenStore(dir as string, { lockTimeoutMs: 60_000 });
await store.file.update(async (current) => {
  process.stdout.write('held\n');
  await new Promise((resolve) => setTimeout(resolve, Number(holdArg)));
  current?.insert(record({ id: 'from-paused', name: 'from-paused' }), NOW);
  return current;
});
process.stdout.write('done\n');
