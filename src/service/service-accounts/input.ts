/**
 * The inputs of `org(o).serviceAccounts` and `.serviceAccount(n).clients`, checked with zod:
 * every bad field at once, as a `ValidationError`.
 * @module
 */
import { z } from 'zod';
import { ValidationError } from '../../errors';
import { ROLES, SERVICE_ACCOUNT_NAME, type RoleName } from '../../core/vocabulary';
import type { PublicJwk } from '../../stores';
import { parseInput } from '../orgs';

const MAX_TEXT = 1024;
const MAX_KEYS = 10;

const description = z
  .string()
  .min(1, 'must be 1 to 1024 characters')
  .max(MAX_TEXT, 'must be 1 to 1024 characters')
  .refine((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s), 'must be one line of text without control characters');
const role = z.enum(ROLES as unknown as [RoleName, ...RoleName[]], { message: 'must be one of owner, admin, editor, viewer' });
const name = z.string().regex(SERVICE_ACCOUNT_NAME, 'must be 1 to 64 of a-z 0-9 -, starting with a letter or digit');

const createSchema = z.strictObject({ name, role, description: description.optional() });
const updateSchema = z.strictObject({
  role: role.optional(),
  description: description.nullable().optional(),
  disabled: z.boolean().optional(),
});

/**
 * A checked `serviceAccounts.create` input.
 *
 * @example
 * ```ts
 * checkCreate({ name: 'ci-bot', role: 'editor' }); // { name: 'ci-bot', role: 'editor', description: null }
 * ```
 */
export function checkCreate(input: unknown): { name: string; role: RoleName; description: string | null } {
  const v = parseInput(createSchema, input, '');
  return { name: v.name, role: v.role, description: v.description ?? null };
}

/**
 * A checked `serviceAccounts.update` input: the fields given.
 *
 * @example
 * ```ts
 * checkUpdate({ disabled: true }); // { disabled: true }
 * ```
 */
export function checkUpdate(input: unknown): { role?: RoleName; description?: string | null; disabled?: boolean } {
  const v = parseInput(updateSchema, input, '');
  const out: { role?: RoleName; description?: string | null; disabled?: boolean } = {};
  if (v.role !== undefined) out.role = v.role;
  if (v.description !== undefined) out.description = v.description;
  if (v.disabled !== undefined) out.disabled = v.disabled;
  return out;
}

/**
 * An account name given as an argument.
 *
 * @example
 * ```ts
 * checkAccountName('ci-bot'); // 'ci-bot'
 * ```
 */
export function checkAccountName(value: unknown): string {
  if (typeof value !== 'string' || !SERVICE_ACCOUNT_NAME.test(value)) {
    throw new ValidationError([{ path: 'name', message: 'must be 1 to 64 of a-z 0-9 -, starting with a letter or digit' }]);
  }
  return value;
}

// Private members of each key type (RFC 7518 §6): a client registers its public keys only.
const PRIVATE = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const b64 = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/, 'must be base64url')
  .max(2048);
const common = { kid: z.string().min(1).max(128).optional(), alg: z.string().max(16).optional(), use: z.literal('sig').optional() };
const okp = z.strictObject({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: b64.length(43, 'must be a 32-byte key'), ...common });
const ec = z.strictObject({ kty: z.literal('EC'), crv: z.enum(['P-256', 'P-384']), x: b64, y: b64, ...common });
// 2048 bits and more: a modulus of at least 342 base64url characters.
const rsa = z.strictObject({ kty: z.literal('RSA'), n: b64.min(342, 'must be an RSA key of 2048 bits or more'), e: b64.max(8), ...common });
const key = z.union([okp, ec, rsa], { message: 'must be a public Ed25519, P-256, P-384 or RSA (2048 bits or more) key' });
const clientSchema = z.union([
  z.strictObject({
    jwks: z.strictObject({ keys: z.array(key).min(1, `give 1 to ${MAX_KEYS} keys`).max(MAX_KEYS, `give 1 to ${MAX_KEYS} keys`) }),
  }),
  z.strictObject({ secret: z.literal(true) }),
]);

/**
 * A checked `clients.create` input: public keys, or a secret to make.
 *
 * @example
 * ```ts
 * checkClientInput({ secret: true }); // { keys: null }
 * ```
 */
export function checkClientInput(input: unknown): { keys: PublicJwk[] | null } {
  let i = -1;
  try {
    const keys = (input as { jwks?: { keys?: unknown } } | null)?.jwks?.keys;
    if (Array.isArray(keys)) i = keys.findIndex((k: unknown) => typeof k === 'object' && k !== null && PRIVATE.some((m) => m in k));
  } catch {
    // A hostile object: zod below reports it as unreadable.
  }
  // Said plainly: a private key pasted here must not be kept, nor named "unknown key".
  if (i >= 0) throw new ValidationError([{ path: ['jwks', 'keys', i], message: 'is a private key: register the public key only' }]);
  const v = parseInput(clientSchema, input, '');
  return { keys: 'jwks' in v ? v.jwks.keys.map((k) => Object.freeze({ ...k }) as PublicJwk) : null };
}
