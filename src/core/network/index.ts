/**
 * Network addresses, beside the vocabulary at the bottom of the core: IP
 * addresses and CIDR ranges (for `allowedIps` and `trustProxy`), the client
 * address of a request behind trusted proxies, the special-use address table,
 * the one loopback rule and the one service-URL rule. Pure and synchronous,
 * no `node:net`: the root package runs where there is none.
 * @module
 */
export { parseAddress, formatAddress, canonicalAddress, type IpAddress } from './address';
export { checkRanges, formatRange, rangeWithin, RangeMatcher } from './range';
export { clientAddress } from './forwarded';
export { isLoopbackAddress, isLoopbackHost, isPublicAddress } from './special';
export { serviceUrl } from './url';
