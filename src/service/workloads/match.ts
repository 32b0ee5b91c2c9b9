/**
 * Matching a verified workload token against its issuer's rules (W3): exact
 * equality of every claim a rule names, the first matching rule wins. No match
 * is a refusal that names the claims the closest rule wanted otherwise (names
 * only: a claim's value is never echoed).
 * @module
 */
import { ForbiddenError } from '../../errors';
import type { WorkloadConfig, WorkloadRuleConfig } from './options';

/** Most claim names listed in a refusal. */
const MAX_NAMED = 8;

/** The names of the claims of `rule` that `claims` does not hold with the same value and type. */
function mismatches(rule: WorkloadRuleConfig, claims: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const [name, value] of rule.claims) {
    // Own members only: a claim named like a prototype member is never found by accident.
    if (!Object.hasOwn(claims, name) || claims[name] !== value) out.push(name);
  }
  return out;
}

/**
 * @internal The first rule of `config` whose claims all equal the token's, or a `ForbiddenError` naming the claims
 * that differed for the closest rule (the fewest differences, the earliest on a tie).
 *
 * @example
 * ```ts
 * const rule = matchRule(config, { repository: 'acme/api', ref: 'refs/heads/main' });
 * rule.account; // { org: 'acme', name: 'ci-bot' }
 * ```
 */
export function matchRule(config: WorkloadConfig, claims: Readonly<Record<string, unknown>>): WorkloadRuleConfig {
  let closest: { rule: WorkloadRuleConfig; missed: string[] } | undefined;
  for (const rule of config.rules) {
    const missed = mismatches(rule, claims);
    if (missed.length === 0) return rule;
    if (closest === undefined || missed.length < closest.missed.length) closest = { rule, missed };
  }
  const { rule, missed } = closest as { rule: WorkloadRuleConfig; missed: string[] };
  const named = missed.slice(0, MAX_NAMED).join(', ') + (missed.length > MAX_NAMED ? `, and ${missed.length - MAX_NAMED} more` : '');
  return refuse(
    `no rule of ${config.issuer} matches this workload token: claims that differ from rule ${rule.index} (the closest): ${named}`,
  );
}

function refuse(message: string): never {
  throw new ForbiddenError(message);
}
