/**
 * The compact form of a stored record in the in-process stores. A million
 * records are a million of these, so each byte of a row is a megabyte: a row
 * keeps only what most records hold on the object itself, and answers the
 * {@link Entry} fields through prototype accessors that cost nothing per row.
 *
 * - Times that are whole seconds (every record the service mints: JWT times are
 *   seconds) are kept as small integers, which the engine stores inside the
 *   object; a plain millisecond number would take a separate heap box. Any
 *   other time is kept exactly, in a one-element array.
 * - The kind and the fields most records leave empty (revocation, description,
 *   committer identity, address ranges, addresses used from, expiry warnings,
 *   the bound key)
 *   live together in one object, shared by every row of that kind that
 *   leaves them all empty, and replaced, never edited, when one of them changes.
 * @module
 */
import type { Scope } from '../core/scopes';
import type { Entry } from './record-codec';
import type { RecordKind } from './types';
import type { UsedEntry } from './usage';
import type { StoredAccess } from './orgs';

/** Seconds within the engine's small-integer range, or the exact milliseconds. */
type Time = number | readonly [number];

// The small-integer range of a 64-bit engine without pointer compression; beyond it
// (after 2038) the array form keeps the field from turning into a boxed double.
const MAX_SECONDS = 2 ** 31 - 1;

/**
 * @internal `ms` in the compact form.
 *
 * @example
 * ```ts
 * packTime(1_767_225_600_000); // 1767225600
 * packTime(1_767_225_600_001); // [1767225600001]
 * ```
 */
export function packTime(ms: number): Time {
  const s = ms / 1000;
  return (s | 0) === s && s <= MAX_SECONDS ? s | 0 : Object.freeze<[number]>([ms]);
}

/**
 * @internal The milliseconds of a compact time.
 *
 * @example
 * ```ts
 * timeOfPacked(packTime(1_767_225_600_001)); // 1767225600001
 * ```
 */
export function timeOfPacked(t: Time): number {
  return typeof t === 'number' ? t * 1000 : t[0];
}

/** The fields most records share with many others: set on few records, or (the kind) one of three values. */
interface Tail {
  readonly kind: RecordKind;
  readonly revokedAt: number | null;
  readonly description: string | null;
  readonly committerIdentity: string | null;
  readonly allowedIps: readonly string[] | null;
  readonly usedFrom: readonly UsedEntry[];
  readonly expiryWarnings: readonly number[];
  readonly orgAccess: readonly StoredAccess[] | null;
  readonly boundKey: string | null;
}

// One shared tail per kind for the records that set none of the other fields.
const plain = new Map<RecordKind, Tail>();

function tailOf(e: Entry): Tail {
  const tail = makeTail(e, e.revokedAt, e.usedFrom, e.expiryWarnings, e.orgAccess);
  if (!isPlain(tail)) return tail;
  const known = plain.get(tail.kind);
  if (known !== undefined) return known;
  plain.set(tail.kind, tail);
  return tail;
}

/**
 * One literal of one shape for every tail (a spread or a freeze would cost a
 * revocation several times more). Tails are never edited, only replaced: no
 * reader outside the row ever sees one, so they need no freeze.
 */
function makeTail(
  t: Omit<Tail, 'revokedAt' | 'usedFrom' | 'expiryWarnings' | 'orgAccess'>,
  revokedAt: number | null,
  usedFrom: readonly UsedEntry[],
  expiryWarnings: readonly number[],
  orgAccess: readonly StoredAccess[] | null,
): Tail {
  return {
    kind: t.kind,
    revokedAt,
    description: t.description,
    committerIdentity: t.committerIdentity,
    allowedIps: t.allowedIps,
    usedFrom,
    expiryWarnings,
    orgAccess,
    boundKey: t.boundKey,
  };
}

function isPlain(t: Tail): boolean {
  return (
    t.revokedAt === null &&
    t.description === null &&
    t.committerIdentity === null &&
    t.allowedIps === null &&
    t.usedFrom.length === 0 &&
    t.expiryWarnings.length === 0 &&
    t.orgAccess === null &&
    t.boundKey === null
  );
}

/**
 * @internal One stored record, compact (see the module comment). Reads and
 * writes like the {@link Entry} it was made from.
 *
 * @example
 * ```ts
 * const row = new Row(toEntry(record, 'date'));
 * row.expiresAt === record.expiresAt.getTime(); // true
 * ```
 */
export class Row implements Entry {
  readonly id: string;
  readonly ownerId: string;
  readonly name: string;
  readonly scopes: readonly Scope[] | null;
  readonly parentId: string | null;
  lastUsedAt: number | null;
  private readonly created: Time;
  private readonly expires: Time;
  private tail: Tail;

  /** `e` with `ownerId`, `parentId` and `scopes` replaced by shared copies of equal value. */
  constructor(e: Entry, ownerId = e.ownerId, parentId = e.parentId, scopes = e.scopes) {
    this.id = e.id;
    this.ownerId = ownerId;
    this.name = e.name;
    this.scopes = scopes;
    this.parentId = parentId;
    this.lastUsedAt = e.lastUsedAt;
    this.created = packTime(e.createdAt);
    this.expires = packTime(e.expiresAt);
    this.tail = tailOf(e);
  }

  get kind(): RecordKind {
    return this.tail.kind;
  }
  get createdAt(): number {
    return timeOfPacked(this.created);
  }
  get expiresAt(): number {
    return timeOfPacked(this.expires);
  }
  get revokedAt(): number | null {
    return this.tail.revokedAt;
  }
  set revokedAt(revokedAt: number | null) {
    const t = this.tail;
    this.tail = makeTail(t, revokedAt, t.usedFrom, t.expiryWarnings, t.orgAccess);
  }
  get description(): string | null {
    return this.tail.description;
  }
  get committerIdentity(): string | null {
    return this.tail.committerIdentity;
  }
  get allowedIps(): readonly string[] | null {
    return this.tail.allowedIps;
  }
  get usedFrom(): readonly UsedEntry[] {
    return this.tail.usedFrom;
  }
  set usedFrom(usedFrom: readonly UsedEntry[]) {
    const t = this.tail;
    this.tail = makeTail(t, t.revokedAt, usedFrom, t.expiryWarnings, t.orgAccess);
  }
  get expiryWarnings(): readonly number[] {
    return this.tail.expiryWarnings;
  }
  set expiryWarnings(expiryWarnings: readonly number[]) {
    const t = this.tail;
    this.tail = makeTail(t, t.revokedAt, t.usedFrom, expiryWarnings, t.orgAccess);
  }
  get boundKey(): string | null {
    return this.tail.boundKey;
  }
  get orgAccess(): readonly StoredAccess[] | null {
    return this.tail.orgAccess;
  }
  set orgAccess(orgAccess: readonly StoredAccess[] | null) {
    const t = this.tail;
    this.tail = makeTail(t, t.revokedAt, t.usedFrom, t.expiryWarnings, orgAccess);
  }
}
