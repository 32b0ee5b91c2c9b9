/**
 * The device flow's pages (RFC 8628): enter the code shown by the device,
 * confirm that the codes match, and the page after approval. oidc-provider
 * hands each of its forms over as HTML; the server keeps the form's own
 * anti-forgery field and renders the form itself, in the same frame as the
 * other pages, without the inline script handler oidc-provider's form carries.
 * @module
 */
import { esc, page } from './layout';

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

/** @internal "Enter the code shown on your device." */
export function deviceInputPage(app: string, action: string, form: string, err?: DeviceError): string {
  const note = problem(err);
  const body = `<p>Enter the code shown on your device or in your terminal.</p>
${note === undefined ? '' : `<p class="note" role="alert">${esc(note)}</p>`}
<form method="post" action="${esc(action)}">
<input type="hidden" name="xsrf" value="${esc(xsrfOf(form))}">
<label for="user_code">Code</label>
<input type="text" id="user_code" name="user_code" class="code" required autofocus autocomplete="off" spellcheck="false" maxlength="32" placeholder="XXXX-XXXX">
<div class="actions"><button type="submit" class="primary">Continue</button></div>
</form>`;
  return page(app, 'Connect a device', body);
}

/** @internal "Does this code match the one on your device?" */
export function deviceConfirmPage(app: string, action: string, form: string, clientName: string, userCode: string): string {
  const body = `<p><strong>${esc(clientName)}</strong> <span class="muted">(name given by the app)</span> asks to sign in on a device.</p>
<p>Check that your device shows this code:</p>
<p class="code">${esc(userCode)}</p>
<p class="muted">If it does not, or you did not start this, cancel.</p>
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
export function deviceDonePage(app: string, clientName: string): string {
  return page(
    app,
    'Device connected',
    `<p><strong>${esc(clientName)}</strong> is signed in. You can close this page and go back to your device.</p>`,
  );
}
