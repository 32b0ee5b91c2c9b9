/**
 * Reading `createGrant`'s input: every problem with the roles and the layers
 * collected as an issue (so one ValidationError lists them all), and the
 * validated parts handed to the table compiler.
 * @module
 */
import { ValidationError, type IssueInput } from '../../errors';
import { isPlainObject, isRoleName, type RoleName } from '../vocabulary';
import { NAME_PATTERN, parseResource, type Scope } from '../scopes';
import { compileLayer, layerData, kindOf, preview, type LayerData } from './compile';
import { compileTable, type GrantTable, type RoleMaps } from './grant-table';
import { readGates } from './gates';

/** @internal the table of a grant input, or null with `issues` filled. Throws only what a getter or Proxy throws. */
export function build(input: unknown, issues: IssueInput[]): GrantTable | null {
  if (!isPlainObject(input)) {
    issues.push({ path: '', message: `expected { roles, layers?, orgGates? }, got ${kindOf(input)}` });
    return null;
  }
  for (const k of Object.keys(input)) {
    if (k !== 'roles' && k !== 'layers' && k !== 'orgGates') issues.push({ path: `[${preview(k)}]`, message: 'unknown key' });
  }
  const rec = input;
  const roles = readRoles(rec['roles'], issues);
  const layers = readLayers(rec['layers'], issues);
  const gates = readGates(rec['orgGates'], issues);
  if (roles === null || layers === null || issues.length > 0) return null;
  return compileTable(roles, layers, gates);
}

function readRoles(value: unknown, issues: IssueInput[]): RoleMaps | null {
  if (!isPlainObject(value)) {
    issues.push({ path: 'roles', message: `expected { orgs?, repos? }, got ${kindOf(value)}` });
    return null;
  }
  for (const k of Object.keys(value)) {
    if (k !== 'orgs' && k !== 'repos') issues.push({ path: `roles[${preview(k)}]`, message: 'unknown key' });
  }
  const rec = value;
  const orgs = readRoleMap(rec['orgs'], 'roles.orgs', false, issues);
  const repos = readRoleMap(rec['repos'], 'roles.repos', true, issues);
  return { orgs, repos };
}

function readRoleMap(value: unknown, path: string, repoKeys: boolean, issues: IssueInput[]): Map<string, RoleName> {
  const out = new Map<string, RoleName>();
  if (value === undefined) return out;
  // A Map or a class instance would read as empty: no access, silently. Refuse it instead.
  if (!isPlainObject(value)) {
    issues.push({ path, message: `expected a plain object of role names, got ${kindOf(value)}` });
    return out;
  }
  for (const key of Object.keys(value)) {
    // Paths are built only for issues: this runs on every authenticate.
    const at = () => `${path}[${preview(key)}]`;
    // Read through the descriptor: a getter could answer differently on each read.
    const desc = Object.getOwnPropertyDescriptor(value, key);
    const role: unknown = desc !== undefined && 'value' in desc ? desc.value : undefined;
    const ref = repoKeys ? parseResource(key) : NAME_PATTERN.test(key) ? parseResource(key) : null;
    if (ref === null || (repoKeys && ref.repo === undefined)) {
      issues.push({ path: at(), message: repoKeys ? 'key must be "<org>/<repo>"' : 'key must be an org name' });
      continue;
    }
    if (!isRoleName(role)) {
      issues.push({ path: at(), message: 'role must be one of owner, admin, editor, viewer' });
      continue;
    }
    const seen = out.get(ref.key);
    if (seen !== undefined && seen !== role) {
      issues.push({ path: at(), message: `conflicts with another key that differs only in case (${seen})` });
      continue;
    }
    out.set(ref.key, role);
  }
  return out;
}

function readLayers(value: unknown, issues: IssueInput[]): LayerData[] | null {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.push({ path: 'layers', message: `expected an array of scope lists, got ${kindOf(value)}` });
    return null;
  }
  const out: LayerData[] = [];
  const n = value.length;
  for (let i = 0; i < n; i++) {
    const item: unknown = value[i];
    let data = layerData(item);
    if (data === undefined) {
      try {
        data = layerData(compileLayer(item as readonly Scope[]));
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        for (const issue of err.issues) issues.push({ code: issue.code, path: ['layers', i, ...issue.path], message: issue.message });
      }
    }
    if (data !== undefined) out.push(data);
  }
  return out;
}
