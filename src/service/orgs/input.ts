/**
 * The inputs of `client(p).org(name)`, checked with zod: every bad field is
 * reported at once, as a `ValidationError` (zod types never leave this file).
 * @module
 */
import { z } from 'zod';
import { ValidationError, type IssueInput } from '../../errors';
import { parseResource } from '../../core/scopes';
import type { OrgPolicyInput } from '../contract';
import type { OrgAccessStatus } from '../../stores';

/** Longest reason or justification (characters). */
const MAX_TEXT = 1024;
const MAX_IDS = 100;
const MAX_EXEMPT = 100;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** One line of text: no control characters at all, no lone surrogate. */
const line = z
  .string()
  .max(MAX_TEXT, `must be at most ${MAX_TEXT} characters`)
  .refine((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s) && !LONE_SURROGATE.test(s), 'must be one line of text without control characters');

const days = z.number().int('must be a whole number of days').min(1, 'must be 1 to 365 days').max(365, 'must be 1 to 365 days');
const lifetime = z.union([
  z
    .string()
    .regex(/^\d{1,3}d$/, "must be '<N>d', a number of days, or null")
    .transform((s) => Number(s.slice(0, -1)))
    .pipe(days),
  days,
  z.null(),
]);
const userId = z.string().min(1, 'must be a user id').max(256, 'must be a user id');

const policySchema = z.strictObject({
  maxLifetime: lifetime.optional(),
  requireApproval: z.boolean().optional(),
  allowGlobal: z.boolean().optional(),
  requireAllowedIps: z.boolean().optional(),
  exempt: z.array(userId).max(MAX_EXEMPT, `at most ${MAX_EXEMPT} user ids`).optional(),
});

const STATUS = z.enum(['pending', 'approved', 'denied', 'revoked']);
const idsSchema = z.array(z.string().min(1).max(256)).min(1, 'give 1 to 100 ids').max(MAX_IDS, 'give 1 to 100 ids');
const decisionSchema = z.strictObject({ reason: line.optional() }).optional();
const listSchema = z.strictObject({ status: STATUS.optional() }).optional();
const filterSchema = z
  .strictObject({
    owner: userId.optional(),
    status: z.enum(['active', 'expired', 'revoked']).optional(),
    access: STATUS.optional(),
    lastUsedBefore: z
      .date()
      .refine((d) => Number.isFinite(d.getTime()), 'must be a valid date')
      .optional(),
    permission: z.string().max(64).optional(),
  })
  .optional();

/**
 * @internal Parse `value` with a zod `schema`: every issue at once, as a `ValidationError` under `prefix`.
 *
 * @example
 * ```ts
 * parse(z.strictObject({ reason: z.string() }), input, 'options');
 * ```
 */
export function parse<T>(schema: z.ZodType<T>, value: unknown, prefix: string): T {
  let r: ReturnType<typeof schema.safeParse>;
  try {
    r = schema.safeParse(value);
  } catch (err) {
    // A hostile object (throwing getters, a Proxy) is bad input, not a crash.
    throw new ValidationError([{ path: prefix, message: 'could not be read' }], { cause: err });
  }
  if (r.success) return r.data;
  const issues: IssueInput[] = r.error.issues.map((i) => ({
    path: [...(prefix === '' ? [] : [prefix]), ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))],
    message: i.message,
  }));
  throw new ValidationError(issues);
}

/**
 * An org name (S7), lowercase.
 *
 * @example
 * ```ts
 * checkOrg('Acme'); // 'acme'
 * ```
 */
export function checkOrg(name: unknown): string {
  const ref = parseResource(name);
  if (ref === null || ref.repo !== undefined) {
    throw new ValidationError([{ path: 'org', message: 'must be an org name: letters, digits, . _ -, at most 100 characters' }]);
  }
  return ref.org;
}

/** A checked `policy.set` input: the fields given, `maxLifetime` in days. */
export interface PolicyChange {
  maxLifetimeDays?: number | null;
  requireApproval?: boolean;
  allowGlobal?: boolean;
  requireAllowedIps?: boolean;
  exempt?: string[];
}

/**
 * Check a `policy.set` input.
 *
 * @example
 * ```ts
 * checkPolicyInput({ maxLifetime: '90d' }); // { maxLifetimeDays: 90 }
 * ```
 */
export function checkPolicyInput(input: OrgPolicyInput): PolicyChange {
  const v = parse(policySchema, input, '');
  const out: PolicyChange = {};
  if (v.maxLifetime !== undefined) out.maxLifetimeDays = v.maxLifetime;
  if (v.requireApproval !== undefined) out.requireApproval = v.requireApproval;
  if (v.allowGlobal !== undefined) out.allowGlobal = v.allowGlobal;
  if (v.requireAllowedIps !== undefined) out.requireAllowedIps = v.requireAllowedIps;
  if (v.exempt !== undefined) out.exempt = [...new Set(v.exempt)];
  return out;
}

/**
 * Check the ids and options of approve, deny and revoke.
 *
 * @example
 * ```ts
 * checkDecision(['q0Zr…'], { reason: 'ok' }); // { ids: ['q0Zr…'], reason: 'ok' }
 * ```
 */
export function checkDecision(ids: unknown, options: unknown): { ids: string[]; reason: string | null } {
  const issues: IssueInput[] = [];
  let checked: string[] = [];
  let reason: string | null = null;
  try {
    checked = [...new Set(parse(idsSchema, ids, 'ids'))];
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    issues.push(...err.issues);
  }
  try {
    reason = parse(decisionSchema, options, 'options')?.reason ?? null;
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    issues.push(...err.issues);
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return { ids: checked, reason };
}

/**
 * Check `requests.list` options: the status to list, `pending` by default.
 *
 * @example
 * ```ts
 * checkListOptions(undefined); // 'pending'
 * ```
 */
export function checkListOptions(options: unknown): OrgAccessStatus {
  return parse(listSchema, options, 'options')?.status ?? 'pending';
}

/**
 * Check `tokens.list` filters.
 *
 * @example
 * ```ts
 * checkFilter({ owner: 'bob' });
 * ```
 */
export function checkFilter(filter: unknown): {
  owner?: string | undefined;
  status?: 'active' | 'expired' | 'revoked' | undefined;
  access?: OrgAccessStatus | undefined;
  lastUsedBefore?: Date | undefined;
  permission?: string | undefined;
} {
  return parse(filterSchema, filter, 'filter') ?? {};
}

/**
 * Check a `justification` of `token.create`: one line, at most 1 024 characters.
 *
 * @example
 * ```ts
 * checkJustification('CI deploys the docs'); // returned as is
 * ```
 */
export function checkJustification(text: unknown): string | null {
  if (text === undefined) return null;
  return parse(line, text, 'justification');
}
