/**
 * Network addresses, beside the vocabulary at the bottom of the core: IP
 * addresses and CIDR ranges (for `allowedIps` and `trustProxy`) and the
 * client address of a request behind trusted proxies. Pure and synchronous,
 * no `node:net`: the root package runs where there is none.
 * @module
 */
export { parseAddress, formatAddress, canonicalAddress, type IpAddress } from './address';
export { checkRanges, formatRange, rangeWithin, readRange, RangeMatcher } from './range';
export { clientAddress } from './forwarded';
