/**
 * Where a request comes from: its client address (behind trusted proxies) and user agent, and the
 * `allowedIps` of a token's chain checked against that address.
 * @module
 */
export { addressOf, addressText, userAgentOf } from './address';
export { AllowedIps, isRestricted } from './allowed-ips';
