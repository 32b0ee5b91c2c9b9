/**
 * The device flow's pages (RFC 8628): enter the code shown by the device,
 * confirm that the codes match, and the page after approval. oidc-provider
 * hands each of its forms over as HTML; the server keeps the form's own
 * anti-forgery field and renders the form itself, in the same frame as the
 * other pages, without the inline script handler oidc-provider's form carries.
 * @module
 */
import type { Permission } from '../../core/vocabulary';
import type { ClientView } from './interaction';
import { esc, page } from './layout';
import { lookOf, type Brand } from './look';

/** What oidc-provider passes when it shows the input page again after a failure. */
interface DeviceError {
  name?: unknown;
  userCode?: unknown;
  error?: unknown;
  cause?: unknown;
}

const XSRF = /name="xsrf" value="([^"]*)"/;

/** @internal The anti-forgery value of an oidc-provider device form, or '' when it has none. */
function xsrfOf(form: string): string {
  return XSRF.exec(form)?.[1] ?? '';
}

/** What went wrong before, in words for the person at the keyboard. */
function problem(err: DeviceError | undefined): string | undefined {
  if (err === undefined) return undefined;
  if (err.userCode !== undefined || err.name === 'NoCodeError')
    return 'That code is not right, or it has expired. Check the code on your device and try again.';
  // A denial on the consent page comes back as an AbortedError caused by AccessDenied.
  if ((err.cause as { name?: unknown } | undefined)?.name === 'AccessDenied' || err.error === 'access_denied')
    return 'Access was denied. The device was not signed in.';
  if (err.name === 'AbortedError') return 'The sign-in was cancelled.';
  return 'Something went wrong. Start again on your device.';
}

/**
 * @internal "Enter the code shown on your device." `form` is oidc-provider's form (for its
 * anti-forgery value) or, for a link that carries the code, that value itself with `code`: the
 * code is filled in and the person presses Continue (oidc-provider's own page for such a link
 * posts itself with an inline script, which this server's pages never run).
 */
export function deviceInputPage(app: Brand, action: string, form: string, err?: DeviceError, code?: string): string {
  const note = problem(err);
  const xsrf = code === undefined ? xsrfOf(form) : form;
  const body = `<p>Enter the code shown on your device or in your terminal.</p>
${note === undefined ? '' : `<p class="note" role="alert">${esc(note)}</p>`}
<form method="post" action="${esc(action)}">
<input type="hidden" name="xsrf" value="${esc(xsrf)}">
<label for="user_code">Code</label>
<input type="text" id="user_code" name="user_code" class="code" required autofocus autocomplete="off" spellcheck="false" maxlength="32" placeholder="XXXX-XXXX"${code === undefined ? '' : ` value="${esc(code.slice(0, 32))}"`}>
<div class="actions"><button type="submit" class="primary">Continue</button></div>
</form>`;
  return page(app, 'Connect a device', body);
}

/** @internal Too many wrong codes from this address (RFC 8628 section 5.1). */
export function deviceTooManyPage(app: Brand, waitSec: number): string {
  const minutes = Math.ceil(waitSec / 60);
  return page(
    app,
    'Too many wrong codes',
    `<p class="note" role="alert">Too many wrong codes were entered from your network. Wait ${minutes === 1 ? 'a minute' : `${minutes} minutes`}, then enter the code shown on your device again.</p>
<p class="muted">Codes are short, so wrong guesses are limited. If you did not try codes yourself, someone on your network may have.</p>`,
  );
}

/** What signing in allows: full access for the command line, else the permissions asked, in words. */
function allows(client: ClientView, asked: readonly Permission[], words: Readonly<Record<Permission, string>>): string {
  if (client.firstParty === true)
    return `<p>Signing in gives the <strong>${esc(client.name)}</strong> <strong>full access as you</strong>: everything your roles allow, including creating and revoking your tokens.</p>`;
  const items = asked.map((p) => `<li>${esc(words[p])}</li>`).join('\n');
  return `<p>Signing in will let it, as you:</p>
<ul class="perms">
${items === '' ? '<li>nothing of yours (no permission is asked)</li>' : items}
</ul>`;
}

/**
 * @internal "Does this code match the one on your device?", with who asks (a third-party
 * name marked as the app's own claim, with its client id and verified site) and what signing
 * in will allow: a person sent a link by someone else learns here what they would hand over.
 */
export function deviceConfirmPage(
  app: Brand,
  action: string,
  form: string,
  client: ClientView,
  userCode: string,
  asked: readonly Permission[],
): string {
  const who =
    client.firstParty === true
      ? `<p>The <strong>${esc(client.name)}</strong> asks to sign in on a device.</p>`
      : `<p><strong>${esc(client.name)}</strong> <span class="muted">(name given by the app)</span> asks to sign in on a device.</p>
<dl class="facts">
<div><dt>Client id</dt><dd>${esc(client.id)}</dd></div>
${client.site === undefined ? '' : `<div><dt>Client site</dt><dd>${esc(client.site)}</dd></div>`}
</dl>`;
  const body = `${who}
${allows(client, asked, lookOf(app).words)}
<p>Check that your device shows this code:</p>
<p class="code">${esc(userCode)}</p>
<p class="note">Continue only if you started this sign-in yourself just now and the code matches. If someone sent you this link or code, cancel.</p>
<form method="post" action="${esc(action)}">
<input type="hidden" name="xsrf" value="${esc(xsrfOf(form))}">
<input type="hidden" name="user_code" value="${esc(userCode)}">
<div class="actions">
<button type="submit" name="abort" value="yes">Cancel</button>
<button type="submit" name="confirm" value="yes" class="primary">Continue</button>
</div>
</form>`;
  return page(app, 'Confirm the code', body);
}

/** @internal After approval. */
export function deviceDonePage(app: Brand, clientName: string): string {
  return page(
    app,
    'Device connected',
    `<p><strong>${esc(clientName)}</strong> is signed in. You can close this page and go back to your device.</p>`,
  );
}
