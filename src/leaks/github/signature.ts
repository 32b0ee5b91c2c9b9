/**
 * The signature of a GitHub secret scanning request, as GitHub documents it:
 * `Github-Public-Key-Identifier` names the key, `Github-Public-Key-Signature`
 * is the base64 of an ECDSA P-256 signature (DER) over SHA-256 of the raw
 * body bytes. Verified with node:crypto; nothing here is hand-rolled crypto.
 * @module
 */
import { verify, type KeyObject } from 'node:crypto';
import { KEY_ID } from './keys';

/** A DER ECDSA P-256 signature is at most 72 bytes (96 base64 characters); a little room, no more. */
const SIGNATURE_B64 = /^[A-Za-z0-9+/]{8,128}={0,2}$/;
const MAX_DER = 80;

/** @internal the two headers, read and checked; a problem as text for the 403. */
export type SignatureHeaders = { keyId: string; signature: Uint8Array } | { problem: string };

/**
 * @internal check the two headers before the body is read. A signature must be canonical base64
 * (it re-encodes to the same text), so that one signature has exactly one spelling.
 */
export function readSignatureHeaders(keyId: string | undefined, signature: string | undefined): SignatureHeaders {
  if (keyId === undefined || signature === undefined) {
    return { problem: 'the request is not signed: Github-Public-Key-Identifier and Github-Public-Key-Signature are required' };
  }
  const id = keyId.trim();
  const sig = signature.trim();
  if (!KEY_ID.test(id)) return { problem: 'Github-Public-Key-Identifier is not a key identifier' };
  if (!SIGNATURE_B64.test(sig) || sig.length % 4 !== 0) return { problem: 'Github-Public-Key-Signature is not base64' };
  const der = Buffer.from(sig, 'base64');
  if (der.length > MAX_DER || der.toString('base64') !== sig) return { problem: 'Github-Public-Key-Signature is not base64' };
  return { keyId: id, signature: der };
}

/** @internal does `signature` (DER) sign `body` under `key` (ECDSA P-256, SHA-256)? Never throws. */
export function verifies(body: Uint8Array, key: KeyObject, signature: Uint8Array): boolean {
  try {
    return verify('sha256', body, { key, dsaEncoding: 'der' }, signature);
  } catch {
    return false;
  }
}
