/**
 * What an org admin's face for machines shows and takes (W1-W3):
 * `client(p).org(name).serviceAccounts` and `.serviceAccount(name)`, and the
 * options of a workload's sign-in with its own identity token.
 * @module
 */
import type { RoleName, ServiceAccountRef } from '../../core/vocabulary';
import type { Scope, ScopeEntry } from '../../core/scopes';
import type { TokenApi } from './tokens';
import type { PublicJwk } from '../../stores';

/**
 * A service account as its org's admins see it.
 *
 * @example
 * ```ts
 * const bot: ServiceAccountInfo = await auth.client(admin).org('acme').serviceAccounts.get('ci-bot');
 * console.log(bot.id, bot.role, bot.disabled); // sa:acme/ci-bot editor false
 * ```
 */
export interface ServiceAccountInfo {
  /** Its principal id, `sa:<org>/<name>` (the owner of its tokens, `principal.userId` of its credentials). */
  id: string;
  org: string;
  name: string;
  /** Its role on `org`, and nowhere else. */
  role: RoleName;
  description: string | null;
  disabled: boolean;
  createdBy: string;
  createdAt: Date;
  updatedBy: string;
  updatedAt: Date;
}

/**
 * Input of `serviceAccounts.create`.
 *
 * @example
 * ```ts
 * const input: CreateServiceAccountInput = { name: 'ci-bot', role: 'editor', description: 'deploys acme/web' };
 * ```
 */
export interface CreateServiceAccountInput {
  /** 1 to 64 of `a-z 0-9 -`, starting with a letter or digit; unique in the org. */
  name: string;
  /** A role on the org, never above the creating admin's own role there. */
  role: RoleName;
  description?: string;
}

/**
 * Input of `serviceAccounts.update`: the fields to change.
 *
 * @example
 * ```ts
 * const input: UpdateServiceAccountInput = { role: 'viewer' };
 * ```
 */
export interface UpdateServiceAccountInput {
  /** Never above the updating admin's own role on the org; a lower role narrows its credentials on the next request. */
  role?: RoleName;
  description?: string | null;
  /** `true` refuses every credential of the account on the next request; `false` lets them in again. */
  disabled?: boolean;
}

/**
 * `client(p).org(name).serviceAccounts`: every call needs `org:admin` on the org.
 *
 * @example
 * ```ts
 * const accounts = auth.client(admin).org('acme').serviceAccounts;
 * await accounts.create({ name: 'ci-bot', role: 'editor' });
 * await accounts.update('ci-bot', { role: 'viewer' });
 * ```
 */
export interface ServiceAccountsApi {
  create(input: CreateServiceAccountInput): Promise<ServiceAccountInfo>;
  list(): Promise<ServiceAccountInfo[]>;
  /** `NotFoundError` when the org has no such account. */
  get(name: string): Promise<ServiceAccountInfo>;
  update(name: string, input: UpdateServiceAccountInput): Promise<ServiceAccountInfo>;
}

/**
 * A machine client of a service account, as its org's admins see it. Never its secret.
 *
 * @example
 * ```ts
 * const [c]: MachineClientInfo[] = await auth.client(admin).org('acme').serviceAccount('ci-bot').clients.list();
 * console.log(c.clientId, c.method, c.status);
 * ```
 */
export interface MachineClientInfo {
  /** The OAuth `client_id` to configure in the machine. */
  clientId: string;
  method: 'private_key_jwt' | 'client_secret_basic';
  status: 'active' | 'revoked';
  createdBy: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/**
 * A machine client just registered: its secret is shown here once (for `{ secret: true }`), and never again.
 *
 * @example
 * ```ts
 * const created: CreatedMachineClient = await auth.client(admin).org('acme').serviceAccount('ci-bot').clients.create({ secret: true });
 * console.log(created.clientId, created.clientSecret);
 * ```
 */
export interface CreatedMachineClient extends MachineClientInfo {
  /** The secret, for `client_secret_basic`; `null` for `private_key_jwt`. */
  clientSecret: string | null;
}

/**
 * Input of `clients.create`: the client's public keys (`private_key_jwt`, RFC 7523, recommended) or a generated secret
 * (`client_secret_basic`).
 *
 * @example
 * ```ts
 * const input: CreateMachineClientInput = { jwks: { keys: [publicJwk] } };
 * ```
 */
export type CreateMachineClientInput = { jwks: { keys: PublicJwk[] } } | { secret: true };

/**
 * `client(p).org(name).serviceAccount(account)`: the account's tokens and machine clients, for the org's admins.
 *
 * @example
 * ```ts
 * const bot = auth.client(admin).org('acme').serviceAccount('ci-bot');
 * const { token } = await bot.token.create({ name: 'deploy', scopes: [{ resource: 'acme/web', permissions: ['repo:write'] }], expiresIn: '30d' });
 * const client = await bot.clients.create({ jwks: { keys: [publicJwk] } });
 * ```
 */
export interface ServiceAccountApi {
  /** The account's PATs: the same operations as `client(p).token`, owned by the account, made by an admin. */
  token: TokenApi;
  clients: {
    create(input: CreateMachineClientInput): Promise<CreatedMachineClient>;
    list(): Promise<MachineClientInfo[]>;
    /** A revoked client is refused at the token endpoint; tokens it got end with the account's access narrowing. */
    revoke(clientId: string): Promise<MachineClientInfo>;
  };
}

/**
 * One rule of a trusted workload issuer: a workload token whose claims equal
 * every one of `claims` may be exchanged for a token of `serviceAccount`.
 *
 * @example
 * ```ts
 * const rule: WorkloadRule = {
 *   claims: { repository: 'acme/api', ref: 'refs/heads/main' },
 *   serviceAccount: 'acme/ci-bot',
 *   scopes: ['acme/api=repo:write'],
 *   expiresIn: '15m',
 * };
 * ```
 */
export interface WorkloadRule {
  /** Claim names and the exact values they must have (strings, numbers or booleans); at least one. */
  claims: Record<string, string | number | boolean>;
  /** `<org>/<name>` of the account. */
  serviceAccount: string;
  /** The most the exchanged token may do, as `--scope` flags or entries; absent: the account's role. */
  scopes?: readonly (string | ScopeEntry)[];
  /** `<N>m` or `<N>h`, at most 1 hour; default 15 minutes. */
  expiresIn?: string;
}

/**
 * A workload identity issuer trusted by `createAuth({ trustedWorkloads })`:
 * GitHub Actions (`https://token.actions.githubusercontent.com`), GitLab CI,
 * a Kubernetes cluster.
 *
 * @example
 * ```ts
 * const github: TrustedWorkload = {
 *   issuer: 'https://token.actions.githubusercontent.com',
 *   audience: 'https://svc.example',
 *   rules: [{ claims: { repository: 'acme/api', ref: 'refs/heads/main' }, serviceAccount: 'acme/ci-bot' }],
 * };
 * ```
 */
export interface TrustedWorkload {
  /** The `iss` its tokens carry; keys come from its discovery document unless `jwksUri` is given. */
  issuer: string;
  /** The `aud` its tokens must carry. */
  audience: string;
  jwksUri?: string;
  rules: WorkloadRule[];
}

/**
 * What `auth.exchangeWorkloadToken` returns: a short-lived token of the account, shown once.
 *
 * @example
 * ```ts
 * const got: ExchangedToken = await auth.exchangeWorkloadToken(githubOidcJwt);
 * console.log(got.serviceAccount, got.expiresAt);
 * ```
 */
export interface ExchangedToken {
  token: string;
  tokenId: string;
  serviceAccount: ServiceAccountRef;
  expiresAt: Date;
  /** What the token may do at most (the rule's scopes narrowed by those asked), or `null` for the account's role. */
  scopes: Scope[] | null;
}

/**
 * Options of `auth.exchangeWorkloadToken`.
 *
 * @example
 * ```ts
 * const options: ExchangeWorkloadOptions = { scopes: ['acme/api=repo:read'] };
 * ```
 */
export interface ExchangeWorkloadOptions {
  /** Narrow the rule's scopes further (`--scope` flags or entries); asking for more than the rule allows is a `ValidationError`. */
  scopes?: readonly (string | ScopeEntry)[];
}

/**
 * The workload exchange of an `Auth` (W3).
 *
 * @example
 * ```ts
 * const exchange: WorkloadExchange['exchangeWorkloadToken'] = auth.exchangeWorkloadToken;
 * ```
 */
export interface WorkloadExchange {
  /**
   * Exchange a workload's OIDC identity token (GitHub Actions, GitLab CI, Kubernetes) for a short-lived token
   * of a service account, by the first rule of `trustedWorkloads` whose claims it matches exactly. The token is
   * verified with its issuer's published keys, `aud` must equal the configured audience, and its `jti` is spent
   * once (across servers on a store with a shared replay cache, such as PostgreSQL). The new token lives the
   * rule's `expiresIn` from now (default 15 minutes, at most 1 hour), is capped by the account's role at each use,
   * and is refused once the account is disabled.
   *
   * Throws `AuthenticationError` for a token that does not verify (reasons `malformed`, `issuer`, `algorithm`,
   * `key`, `signature`, `audience`, `expired`, `not_yet_valid`; `revoked` for a token exchanged before),
   * `ForbiddenError` when no rule matches (its message names the claims the closest rule wanted otherwise,
   * never their values) or the account is missing or disabled, `ValidationError` for bad options,
   * `UnavailableError` when the issuer or the store cannot be reached.
   *
   * @example
   * ```ts
   * const { token, expiresAt } = await auth.exchangeWorkloadToken(process.env.CI_JOB_JWT!);
   * ```
   */
  exchangeWorkloadToken(jwt: string, options?: ExchangeWorkloadOptions): Promise<ExchangedToken>;
}
