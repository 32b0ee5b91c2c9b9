import { describe, expect, it } from 'vitest';
import { ValidationError, type IssueInput } from '../../../src/errors';
import { FileTokenStore } from '../../../src/stores';
import { checkOptions } from '../../../src/core/vocabulary';

describe('checkOptions', () => {
  it('passes an object whose keys are all known and reports nothing', () => {
    const issues: IssueInput[] = [];
    expect(checkOptions({ realm: 'svc' }, ['realm', 'optional'], 'options', issues)).toBe(true);
    expect(issues).toEqual([]);
  });

  it('a misspelt option is an unrecognized_keys issue at <path>.<key>', () => {
    const issues: IssueInput[] = [];
    expect(checkOptions({ realm: 'svc', optinal: true }, new Set(['realm', 'optional']), 'options', issues)).toBe(false);
    expect(issues).toEqual([{ code: 'unrecognized_keys', path: ['options', 'optinal'], message: 'unknown option' }]);
  });

  it('a symbol key smuggled into options is refused too, at the top level when path is empty', () => {
    const issues: IssueInput[] = [];
    expect(checkOptions({ [Symbol('x')]: 1 }, ['realm'], '', issues)).toBe(false);
    expect(issues.map((i) => i.code)).toEqual(['unrecognized_keys']);
  });

  it('a huge hostile key is cut in the issue path', () => {
    const issues: IssueInput[] = [];
    checkOptions({ ['k'.repeat(10_000)]: 1 }, [], '', issues);
    expect((issues[0]?.path as string[])[0]?.length).toBe(64);
  });

  it('the file stores refuse a misspelt timing option when built', () => {
    try {
      new FileTokenStore('/tmp/never-written', { lockTimeOutMs: 1 } as never);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues.map((i) => i.code)).toEqual(['unrecognized_keys']);
    }
  });
});
