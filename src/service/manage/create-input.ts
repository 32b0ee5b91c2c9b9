/**
 * The input of `client(p).token.create`, read once and checked field by field
 * (every problem reported together), before any rule of the caller's chain applies.
 * @module
 */
import { ValidationError, type IssueInput } from '../../errors';
import { normalizeScopes, LIMITS, type Scope } from '../../core/scopes';
import { checkRanges } from '../../core/network';
import { MAX_ALLOWED_IPS } from '../../stores';
import { bindingThumbprint, parsePatExpiry } from '../../tokens';
import { checkIdentity } from '../identity';
import { checkJustification } from '../orgs';
import { checkStoredText } from './stored-text';
import type { CreateTokenInput } from '../contract';

const CREATE_KEYS = new Set(['name', 'description', 'scopes', 'expiresIn', 'committerIdentity', 'allowedIps', 'justification', 'bindKey']);

/** Run one field check, turning its `ValidationError` into issues so that all are reported at once. */
function collect<T>(issues: IssueInput[], check: () => T): T | undefined {
  try {
    return check();
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    issues.push(...err.issues);
    return undefined;
  }
}

export function checkName(name: unknown, path = 'name'): string {
  if (typeof name !== 'string' || !LIMITS.tokenName.test(name)) {
    throw new ValidationError([{ path, message: 'must be 1 to 64 letters, digits, hyphens or underscores' }]);
  }
  return name;
}

/** @internal a create input, checked. */
export interface CheckedCreate {
  name: string;
  description: string | null;
  scopes: Scope[] | null;
  warnings: string[];
  lifetimeSec: number;
  /** Was `expiresIn` given? Only an explicit expiry that had to be clamped warns. */
  explicitExpiry: boolean;
  committerIdentity: string | null;
  allowedIps: readonly string[] | null;
  justification: string | null;
  /** The thumbprint of the key named by `bindKey`, or `null` when none was named. */
  boundKey: string | null;
}

/**
 * @internal Read and check a create input; a hostile object (throwing getters, Proxy) is a `ValidationError`.
 *
 * @example
 * ```ts
 * const checked = await checkCreateInput({ name: 'ci', expiresIn: '30d' });
 * ```
 */
export async function checkCreateInput(input: unknown): Promise<CheckedCreate> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError([
      {
        path: '',
        message:
          'create needs an object { name, description?, scopes?, expiresIn?, committerIdentity?, allowedIps?, justification?, bindKey? }',
      },
    ]);
  }
  let fields: Partial<Record<keyof CreateTokenInput, unknown>>;
  let keys: (string | symbol)[];
  try {
    keys = Reflect.ownKeys(input);
    const o = input as Record<string, unknown>;
    fields = {
      name: o.name,
      description: o.description,
      scopes: o.scopes,
      expiresIn: o.expiresIn,
      committerIdentity: o.committerIdentity,
      allowedIps: o.allowedIps,
      justification: o.justification,
      bindKey: o.bindKey,
    };
  } catch (err) {
    throw new ValidationError([{ path: '', message: 'create input could not be read' }], { cause: err });
  }
  const issues: IssueInput[] = [];
  for (const k of keys)
    if (typeof k !== 'string' || !CREATE_KEYS.has(k))
      issues.push({ code: 'unrecognized_keys', path: [String(k)], message: 'unknown field' });
  const name = collect(issues, () => checkName(fields.name));
  const description = collect(issues, () => {
    const d = fields.description;
    if (d === undefined) return null;
    if (typeof d !== 'string' || d.length > LIMITS.maxDescriptionLength) {
      throw new ValidationError([
        { path: 'description', message: `must be a string of at most ${LIMITS.maxDescriptionLength} characters` },
      ]);
    }
    return checkStoredText(d, 'description', true);
  });
  const lifetimeSec = collect(issues, () => parsePatExpiry(fields.expiresIn as string | number | undefined));
  const committerIdentity = collect(issues, () =>
    fields.committerIdentity === undefined ? null : checkIdentity(fields.committerIdentity, 'committerIdentity'),
  );
  const normalized = collect(issues, () => {
    if (fields.scopes === undefined) return null;
    try {
      return normalizeScopes(fields.scopes as Scope[]);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      throw new ValidationError(err.issues.map((i) => ({ code: i.code, path: ['scopes', ...i.path], message: i.message })));
    }
  });
  const allowedIps = collect(issues, () =>
    fields.allowedIps === undefined
      ? null
      : checkRanges(fields.allowedIps, { path: 'allowedIps', max: MAX_ALLOWED_IPS, allowEmpty: false }),
  );
  const justification = collect(issues, () => checkJustification(fields.justification));
  let boundKey: string | null = null;
  if (fields.bindKey !== undefined) {
    try {
      boundKey = await bindingThumbprint(fields.bindKey, 'bindKey');
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      issues.push(...err.issues);
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return {
    justification: justification ?? null,
    allowedIps: allowedIps === undefined || allowedIps === null ? null : Object.freeze(allowedIps),
    name: name as string,
    description: description as string | null,
    scopes: normalized === null || normalized === undefined ? null : normalized.scopes,
    warnings: normalized === null || normalized === undefined ? [] : [...normalized.warnings],
    lifetimeSec: lifetimeSec as number,
    explicitExpiry: fields.expiresIn !== undefined,
    committerIdentity: committerIdentity as string | null,
    boundKey,
  };
}
