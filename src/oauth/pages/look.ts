/**
 * Your own words and look on the pages (`pages` option): the product name
 * (`name`), a logo, an accent colour, and the text of each permission. Checked
 * once, when the server is built: the logo an https URL (or http on a loopback
 * host), the colour a CSS hex colour, each text 1 to 120 printable
 * characters. Everything is HTML-escaped where it is shown, and the pages'
 * Content-Security-Policy names the logo's origin and the stylesheet's hash.
 * @module
 */
import type { IssueInput } from '../../errors';
import { checkOptions, isPlainObject, PERMISSIONS, type Permission } from '../../core/vocabulary';
import { serviceUrl } from '../../core/network';
import { permissionWords } from './words';

/** @internal How the pages look, resolved. */
export interface Look {
  /** The product name the pages show. */
  readonly name: string;
  /** The logo's URL (shown 28 px high beside the name), or `undefined` for the name's first letter. */
  readonly logoUrl?: string | undefined;
  /** The accent colour (buttons, ticks), `#rgb` or `#rrggbb`; `undefined` for the default blue. */
  readonly colour?: string | undefined;
  /** The text of each permission. */
  readonly words: Readonly<Record<Permission, string>>;
}

/** @internal A look given as the product name alone (the default look otherwise). */
export type Brand = string | Look;

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
const PRINTABLE = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]{1,120}$/;

const DEFAULT_WORDS: Readonly<Record<Permission, string>> = Object.freeze(
  Object.fromEntries(PERMISSIONS.map((p) => [p, permissionWords(p)])) as Record<Permission, string>,
);

/**
 * @internal The look of `brand`.
 *
 * @example
 * ```ts
 * lookOf('Acme Notes').words['repo:read']; // 'Read repositories and the things in them'
 * ```
 */
export function lookOf(brand: Brand): Look {
  return typeof brand === 'string' ? { name: brand, words: DEFAULT_WORDS } : brand;
}

/**
 * @internal Check the `pages` option (problems go to `issues`) and resolve the look.
 *
 * @example
 * ```ts
 * checkLook({ colour: '#0a7d4f' }, 'Acme Notes', []).colour; // '#0a7d4f'
 * ```
 */
export function checkLook(value: unknown, name: string, issues: IssueInput[]): Look {
  if (value === undefined) return lookOf(name);
  if (!isPlainObject(value)) {
    issues.push({ path: 'pages', message: 'must be { logoUrl?, colour?, permissionText? }' });
    return lookOf(name);
  }
  checkOptions(value, ['logoUrl', 'colour', 'permissionText'], 'pages', issues);
  let logoUrl: string | undefined;
  if (value.logoUrl !== undefined) {
    // The one service-URL rule: https, or http on loopback; no credentials, no fragment.
    const url = serviceUrl(value.logoUrl);
    if (typeof url !== 'string') logoUrl = url.href;
    else issues.push({ path: 'pages.logoUrl', message: url });
  }
  let colour: string | undefined;
  if (value.colour !== undefined) {
    if (typeof value.colour === 'string' && HEX.test(value.colour)) colour = value.colour.toLowerCase();
    else issues.push({ path: 'pages.colour', message: 'must be a CSS hex colour such as #0a7d4f' });
  }
  const words: Record<Permission, string> = { ...DEFAULT_WORDS };
  const texts = value.permissionText;
  if (texts !== undefined) {
    if (!isPlainObject(texts)) issues.push({ path: 'pages.permissionText', message: 'must be an object of permission: text' });
    else {
      checkOptions(texts, PERMISSIONS, 'pages.permissionText', issues);
      for (const p of PERMISSIONS) {
        const text = texts[p];
        if (text === undefined) continue;
        if (typeof text === 'string' && PRINTABLE.test(text)) words[p] = text;
        else issues.push({ path: ['pages.permissionText', p], message: 'must be 1 to 120 printable characters' });
      }
    }
  }
  return Object.freeze({ name, logoUrl, colour, words: Object.freeze(words) });
}
