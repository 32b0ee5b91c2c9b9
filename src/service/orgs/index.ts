/**
 * Organizations that govern the tokens reaching them (G1-G4): the owners'
 * face `client(p).org(name)` (api.ts), the gates a policy puts on a PAT chain
 * at use (gates.ts, read on the request path by policies.ts), and the checks
 * at creation (create.ts).
 * @module
 */
export { orgApi } from './api';
export { accessAtCreation, gateReader, policyIndexReader } from './policies';
export { sameGates, orgRoleOf } from './gates';
export { inheritedAccess, type NewToken } from './create';
export { checkJustification, checkOrg, parse as parseInput } from './input';
