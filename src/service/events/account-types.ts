/**
 * Audit events of service accounts (W1): created, changed, disabled. The
 * account's tokens have the usual token events, with the account as owner.
 * @module
 */
import type { RoleName } from '../../core/vocabulary';
import type { EventActor } from './actor';

/**
 * What an account event shows of the account: never a client secret.
 *
 * @example
 * ```ts
 * const s: ServiceAccountSnapshot = { role: 'editor', description: null, disabled: false };
 * ```
 */
export interface ServiceAccountSnapshot {
  readonly role: RoleName;
  readonly description: string | null;
  readonly disabled: boolean;
}

/**
 * An org admin created (`service_account.created`), changed (`service_account.updated`, a machine
 * client registered or revoked included) or disabled (`service_account.disabled`) a service account.
 *
 * @example
 * ```ts
 * if (e.type === 'service_account.disabled') alert(`${e.actor.userId} disabled ${e.org}/${e.name}`);
 * ```
 */
export interface ServiceAccountEvent {
  readonly type: 'service_account.created' | 'service_account.updated' | 'service_account.disabled';
  readonly at: Date;
  readonly actor: EventActor;
  /** The owning org, lowercase. */
  readonly org: string;
  readonly name: string;
  /** The account's principal id, `sa:<org>/<name>`. */
  readonly accountId: string;
  /** Before the change; `null` for `created`. */
  readonly before: ServiceAccountSnapshot | null;
  readonly after: ServiceAccountSnapshot;
  /** A machine client registered or revoked by this change, or `null`. */
  readonly clientId: string | null;
}
