/**
 * The sign-in and consent pages. Each is one form posted back to the server
 * with a form token (CSRF) in a hidden field; nothing needs JavaScript. The
 * consent page says who asks (the client's own name, marked as the client's
 * claim, and its verified site when its id is a metadata document URL), where
 * the browser goes next (the redirect host), and what is asked, in words.
 * @module
 */
import type { Permission } from '../../core/vocabulary';
import { esc, page } from './layout';
import { lookOf, type Brand } from './look';

/** @internal Who asks, as the pages show it. */
export interface ClientView {
  /** The client id. */
  readonly id: string;
  /** The client's name as it registered it (unverified), or its id when it gave none. */
  readonly name: string;
  /** The host of its metadata document URL: a site the server fetched the client from. */
  readonly site?: string | undefined;
  /** The server's own client (the svc command line): its name is the server's, not a claim. */
  readonly firstParty?: boolean | undefined;
}

/** @internal The sign-in page: a select of users when the list is known, else a text input. */
export function signInPage(v: {
  app: Brand;
  action: string;
  csrf: string;
  client: ClientView;
  users: readonly string[];
  error?: string | undefined;
}): string {
  const field =
    v.users.length > 0
      ? `<label for="user">Sign in as</label>
<select id="user" name="user" required autofocus>
${v.users.map((u) => `<option value="${esc(u)}">${esc(u)}</option>`).join('\n')}
</select>`
      : `<label for="user">User id</label>
<input type="text" id="user" name="user" required autofocus autocomplete="username" spellcheck="false" maxlength="256">`;
  const who =
    v.client.firstParty === true
      ? ''
      : ` <span class="muted">(name given by the app${v.client.site === undefined ? '' : `, ${esc(v.client.site)}`})</span>`;
  const body = `<p>to continue to <strong>${esc(v.client.name)}</strong>${who}</p>
${v.error === undefined ? '' : `<p class="note" role="alert">${esc(v.error)}</p>`}
<form method="post" action="${esc(v.action)}">
<input type="hidden" name="csrf" value="${esc(v.csrf)}">
${field}
<div class="actions"><button type="submit" class="primary">Continue</button></div>
</form>
<footer>This is a development sign-in: choose the member to act as. No password is asked.</footer>`;
  return page(v.app, `Sign in to ${lookOf(v.app).name}`, body);
}

/**
 * @internal One permission on the consent page: `fresh` when the client's current grant does
 * not hold it yet, `held` when the user's roles allow it somewhere (`undefined`: not known).
 */
export interface AskedPermission {
  readonly permission: Permission;
  readonly fresh: boolean;
  readonly held?: boolean | undefined;
}

/** The form field of a permission's checkbox (one field per permission: a form field given twice is refused). */
export const permissionField = (permission: Permission): string => `permission.${permission}`;

/** The decision buttons, the same on both consent pages; `fields` go inside the form (the checkboxes). */
function decisionForm(action: string, csrf: string, fields = ''): string {
  return `<form method="post" action="${esc(action)}">
<input type="hidden" name="csrf" value="${esc(csrf)}">
${fields}<div class="actions">
<button type="submit" name="decision" value="deny">Deny</button>
<button type="submit" name="decision" value="approve" class="primary">Allow</button>
</div>
</form>`;
}

const PHISHING_WARNING = 'If someone sent you this link, deny.';

/**
 * @internal The consent page of the `svc` command line (`svc auth login`): it asks for full
 * access, so the page says so in plain words, what that includes, and when to deny. It is all
 * or nothing: the command line exists to manage tokens, which a narrowed token may not.
 */
export function cliConsentPage(v: { app: Brand; action: string; csrf: string; user: string }): string {
  const body = `<p>The <strong>${esc(lookOf(v.app).name)} command line</strong> (<code>svc auth login</code>) asks for <strong>full access as you, ${esc(v.user)}</strong>.</p>
<ul class="perms">
<li>It can do everything your roles allow, in every organization and repository.</li>
<li>It can create, list and revoke your tokens, and end your sessions.</li>
</ul>
<dl class="facts">
<div><dt>Sign-in for</dt><dd>the svc command line, on a device or terminal</dd></div>
</dl>
<p class="note">Allow only if you ran <code>svc auth login</code> yourself just now and the code matched. ${PHISHING_WARNING}</p>
${decisionForm(v.action, v.csrf)}`;
  return page(v.app, 'Allow the svc command line full access?', body);
}

/** One permission as a checkbox: ticked unless the user's roles never allow it (it would grant nothing today). */
function permissionItem({ permission, fresh, held }: AskedPermission, words: (p: Permission) => string): string {
  const id = `p-${permission.replace(':', '-')}`;
  const notes = [fresh ? '' : 'already allowed', held === false ? 'your roles do not allow this: the app could not do it' : '']
    .filter(Boolean)
    .map((n) => ` <span class="muted">(${esc(n)})</span>`)
    .join('');
  return `<li><label class="perm" for="${id}"><input type="checkbox" id="${id}" name="${esc(permissionField(permission))}" value="yes"${held === false ? '' : ' checked'}> ${esc(words(permission))}${notes}<br><code>${esc(permission)}</code></label></li>`;
}

/**
 * @internal The consent page: who asks (the name marked as the app's claim, its client id,
 * its verified site), for whom, where the browser goes next, and each permission as a checkbox
 * the person may untick (the grant holds only what stays ticked). `redirectHost` is absent for
 * a device: the device flow is the one a code can be phished with, so the page then warns.
 */
export function consentPage(v: {
  app: Brand;
  action: string;
  csrf: string;
  client: ClientView;
  user: string;
  permissions: readonly AskedPermission[];
  redirectHost?: string | undefined;
  words?: ((permission: Permission) => string) | undefined;
  error?: string | undefined;
}): string {
  const words = v.words ?? ((p: Permission) => lookOf(v.app).words[p]);
  const items = v.permissions.map((p) => permissionItem(p, words)).join('\n');
  const site = v.client.site === undefined ? '' : `<div><dt>Client site</dt><dd>${esc(v.client.site)}</dd></div>`;
  const next =
    v.redirectHost === undefined
      ? `<div><dt>Sign-in for</dt><dd>a device or command line</dd></div>`
      : `<div><dt>Returns you to</dt><dd>${esc(v.redirectHost)}</dd></div>`;
  const none = v.permissions.length > 0 && v.permissions.every((p) => p.held === false);
  const body = `<p><strong>${esc(v.client.name)}</strong> <span class="muted">(name given by the app)</span> wants to act as you, <strong>${esc(v.user)}</strong>, with the permissions ticked below. Untick what you do not want to allow.</p>
${v.error === undefined ? '' : `<p class="note" role="alert">${esc(v.error)}</p>`}
${none ? `<p class="note">You, ${esc(v.user)}, have no access here: your roles allow none of these, so the app could do nothing as you.</p>` : ''}
<dl class="facts">
<div><dt>Client id</dt><dd>${esc(v.client.id)}</dd></div>
${site}
${next}
</dl>
<p class="muted">It can never do more than your own roles allow. Allow only apps you trust${v.redirectHost === undefined ? '' : ', and check the host above'}.</p>
${v.redirectHost === undefined ? `<p class="note">Allow only if you started this sign-in yourself just now and the code matched. ${PHISHING_WARNING}</p>\n` : ''}${decisionForm(v.action, v.csrf, `<ul class="perms">\n${items}\n</ul>\n`)}`;
  return page(v.app, `Allow ${v.client.name}?`, body);
}

/** @internal A page that tells a person what went wrong and what to do, never how (no stack, no internals). */
export function errorPage(app: Brand, title: string, message: string): string {
  return page(app, title, `<p>${esc(message)}</p>\n<p class="muted">You can close this page and start again from the app.</p>`);
}
