/**
 * Reading `createGrant`'s `orgGates` (G2): each org's gate checked and turned
 * into its one frozen `policy` decision, so `authorize` hands that object out
 * and allocates nothing.
 * @module
 */
import type { IssueInput } from '../../errors';
import { isPlainObject } from '../vocabulary';
import { NAME_PATTERN } from '../scopes';
import { kindOf, preview } from './compile';
import type { Decision } from './decision';

/** @internal one org's compiled gate. */
export interface CompiledGate {
  /** `blocked` refuses everything the role cap allows; `scopedOnly` refuses what arrives through a global tier or without layers. */
  readonly kind: 'blocked' | 'scopedOnly';
  /** The frozen `{ allowed: false, reason: 'policy', message }` of this gate. */
  readonly decision: Decision;
}

/** A grant is built on every authenticate: far more gates than orgs a user could belong to is an error, not a workload. */
const MAX_GATES = 10_000;
const MAX_MESSAGE = 2048;

/** @internal validated gates by lowercase org name; problems go to `issues`. */
export function readGates(value: unknown, issues: IssueInput[]): Map<string, CompiledGate> {
  const out = new Map<string, CompiledGate>();
  if (value === undefined) return out;
  if (!isPlainObject(value)) {
    issues.push({ path: 'orgGates', message: `expected a plain object of gates by org name, got ${kindOf(value)}` });
    return out;
  }
  const keys = Object.keys(value);
  if (keys.length > MAX_GATES) {
    issues.push({ path: 'orgGates', message: `at most ${MAX_GATES} gates, got ${keys.length}` });
    return out;
  }
  for (const key of keys) {
    const at = `orgGates[${preview(key)}]`;
    // Read through the descriptor: a getter could answer differently on each read.
    const desc = Object.getOwnPropertyDescriptor(value, key);
    const gate: unknown = desc !== undefined && 'value' in desc ? desc.value : undefined;
    if (!NAME_PATTERN.test(key)) {
      issues.push({ path: at, message: 'key must be an org name' });
      continue;
    }
    const compiled = readGate(gate, at, issues);
    if (compiled === null) continue;
    const org = key.toLowerCase();
    const seen = out.get(org);
    if (seen !== undefined && (seen.kind !== compiled.kind || messageOf(seen) !== messageOf(compiled))) {
      issues.push({ path: at, message: 'conflicts with another key that differs only in case' });
      continue;
    }
    out.set(org, compiled);
  }
  return out;
}

function messageOf(gate: CompiledGate): string | undefined {
  return gate.decision.allowed ? undefined : gate.decision.message;
}

function readGate(gate: unknown, at: string, issues: IssueInput[]): CompiledGate | null {
  const shape = 'gate must be { blocked: message } or { scopedOnly: message }';
  if (!isPlainObject(gate)) {
    issues.push({ path: at, message: `${shape}, got ${kindOf(gate)}` });
    return null;
  }
  const keys = Object.keys(gate);
  const kind = keys[0];
  if (keys.length !== 1 || (kind !== 'blocked' && kind !== 'scopedOnly')) {
    issues.push({ path: at, message: shape });
    return null;
  }
  const desc = Object.getOwnPropertyDescriptor(gate, kind);
  const message: unknown = desc !== undefined && 'value' in desc ? desc.value : undefined;
  if (typeof message !== 'string' || message.length === 0 || message.length > MAX_MESSAGE) {
    issues.push({ path: `${at}.${kind}`, message: `message must be a string of 1 to ${MAX_MESSAGE} characters` });
    return null;
  }
  const decision: Decision = Object.freeze({ allowed: false as const, reason: 'policy' as const, message });
  return { kind, decision };
}
