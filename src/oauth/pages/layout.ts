/**
 * The frame of every page the authorization server shows a person (sign-in,
 * consent, device code, errors): plain HTML that works without JavaScript, one
 * inline stylesheet allowed by its hash, and the headers that keep the page
 * from being framed (clickjacking a consent button), cached or leaking its URL
 * (which may carry a user code) to another site (referrer only to this origin).
 * @module
 */
import { createHash } from 'node:crypto';
import { lookOf, type Brand, type Look } from './look';

const CSS = `
:root{color-scheme:light dark;--bg:#f4f5f7;--card:#fff;--ink:#1d2330;--muted:#5b6473;--line:#d9dde3;--accent:#1f5fd1;--accent-ink:#fff;--warn:#8a5a00;--warn-bg:#fff6e0}
@media (prefers-color-scheme:dark){:root{--bg:#15181d;--card:#1f242b;--ink:#e8ebf0;--muted:#a3acb9;--line:#343b45;--accent:#5b8def;--accent-ink:#0b1220;--warn:#f0c36a;--warn-bg:#2d2616}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:var(--bg);color:var(--ink);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;padding:24px}
main{width:100%;max-width:440px;background:var(--card);border:1px solid var(--line);border-radius:12px;padding:32px;box-shadow:0 1px 3px rgba(0,0,0,.06)}
.brand{display:flex;align-items:center;gap:10px;margin:0 0 20px;color:var(--muted);font-size:14px;font-weight:600;letter-spacing:.02em}
.logo{height:28px;width:auto;max-width:160px}
.mark{width:28px;height:28px;border-radius:7px;background:var(--accent);color:var(--accent-ink);display:inline-flex;align-items:center;justify-content:center;font-weight:700}
h1{font-size:22px;line-height:1.3;margin:0 0 8px}
p{margin:0 0 16px}
.muted{color:var(--muted);font-size:14px}
label{display:block;font-weight:600;margin:0 0 6px}
select,input[type=text]{width:100%;font:inherit;padding:10px 12px;border:1px solid var(--line);border-radius:8px;background:var(--card);color:var(--ink);margin:0 0 20px}
.code{font:600 22px/1.2 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.12em;text-align:center}
ul.perms{list-style:none;padding:0;margin:0 0 20px;border:1px solid var(--line);border-radius:8px}
ul.perms li{padding:10px 14px;border-top:1px solid var(--line)}
ul.perms li:first-child{border-top:0}
ul.perms code{font-size:13px;color:var(--muted)}
ul.perms label.perm{font-weight:400;margin:0;cursor:pointer}
ul.perms input[type=checkbox]{width:16px;height:16px;margin:0 8px 0 0;vertical-align:-2px;accent-color:var(--accent)}
.facts{margin:0 0 20px;padding:12px 14px;border-radius:8px;background:var(--bg);font-size:14px}
.facts div{display:flex;justify-content:space-between;gap:12px}
.facts dt{color:var(--muted);white-space:nowrap}
.facts dd{margin:0;font-weight:600;text-align:right;word-break:break-all}
.note{padding:10px 14px;border-radius:8px;background:var(--warn-bg);color:var(--warn);font-size:14px;margin:0 0 20px}
.actions{display:flex;gap:12px;flex-wrap:wrap}
button{flex:1;font:inherit;font-weight:600;padding:11px 16px;border-radius:8px;border:1px solid var(--line);background:var(--card);color:var(--ink);cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-ink)}
button:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
footer{margin-top:20px;font-size:13px;color:var(--muted)}
`.trim();

/** Black or white, whichever reads better on `hex` (its relative luminance, roughly). */
function inkOn(hex: string): string {
  const full = hex.length === 4 ? hex.replace(/^#(.)(.)(.)$/, '#$1$1$2$2$3$3') : hex;
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(full.slice(i, i + 2), 16) / 255) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.55 ? '#0b1220' : '#fff';
}

/** The stylesheet of a look: the accent colour, when given, in light and dark mode alike. */
function cssOf(look: Look): string {
  if (look.colour === undefined) return CSS;
  const accent = `--accent:${look.colour};--accent-ink:${inkOn(look.colour)}`;
  return CSS.replace('--accent:#1f5fd1;--accent-ink:#fff', accent).replace('--accent:#5b8def;--accent-ink:#0b1220', accent);
}

/** The headers of a look: the stylesheet by its hash, images from this server and the logo's origin. */
function headersOf(look: Look): Readonly<Record<string, string>> {
  const hash = createHash('sha256').update(cssOf(look)).digest('base64');
  const logo = look.logoUrl === undefined ? '' : ` ${new URL(look.logoUrl).origin}`;
  return Object.freeze({
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; style-src 'sha256-${hash}'; img-src 'self'${logo}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    // Not no-referrer: with it, browsers send `Origin: null` on the page's own form posts, and the
    // forgery check (interactions/csrf.ts) must tell this server's origin from an opaque one.
    'referrer-policy': 'same-origin',
  });
}

/** @internal The headers of every page: no framing, no caching, no referrer, no script, nothing fetched. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = headersOf(lookOf('svc'));

const HEADERS = new WeakMap<Look, Readonly<Record<string, string>>>();

/**
 * @internal The headers of the pages of `brand` (its colour changes the stylesheet's hash, its
 * logo the images allowed); {@link PAGE_HEADERS} for a plain name.
 *
 * @example
 * ```ts
 * pageHeaders('svc') === PAGE_HEADERS; // true
 * ```
 */
export function pageHeaders(brand: Brand): Readonly<Record<string, string>> {
  if (typeof brand === 'string') return PAGE_HEADERS;
  let headers = HEADERS.get(brand);
  if (headers === undefined) HEADERS.set(brand, (headers = headersOf(brand)));
  return headers;
}

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * @internal Escape text for HTML content and attribute values (double-quoted).
 *
 * @example
 * ```ts
 * esc('<b>"x"</b>'); // '&lt;b&gt;&quot;x&quot;&lt;/b&gt;' (control characters are dropped)
 * ```
 */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] as string).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '');
}

/**
 * @internal A whole page of `brand` (send it with {@link pageHeaders} of the same brand): `title`
 * (plain text) in the tab and the heading, `body` (HTML, already escaped) below it.
 */
export function page(brand: Brand, title: string, body: string): string {
  const look = lookOf(brand);
  const app = look.name;
  const mark =
    look.logoUrl === undefined
      ? `<span class="mark" aria-hidden="true">${esc(app.slice(0, 1).toUpperCase())}</span>`
      : `<img class="logo" src="${esc(look.logoUrl)}" alt="">`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · ${esc(app)}</title>
<style>${cssOf(look)}</style>
</head>
<body>
<main>
<div class="brand">${mark}${esc(app)}</div>
<h1>${esc(title)}</h1>
${body}
</main>
</body>
</html>
`;
}
