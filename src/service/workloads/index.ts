/**
 * Workload identity federation (W3): `trustedWorkloads`, and
 * `auth.exchangeWorkloadToken`, which turns a CI job's or a cluster workload's
 * own identity token into a short-lived token of a service account.
 * @module
 */

/** @internal for the folders above (each imports this folder through its index); the package root decides what is public. */
export { checkTrustedWorkloads, type WorkloadConfig } from './options';
export { workloadExchanger } from './exchange';
export { plainMint } from './mint';
