/**
 * The interactions oidc-provider hands over (HOUSE: interactions are your own
 * routes): sign-in and consent, at `<prefix>/interaction/<uid>`. A GET shows
 * the page the interaction needs; a form posted back is checked for forgery
 * (csrf.ts), then finishes the interaction, which sends the browser on to the
 * client (with a code, or `error=access_denied` after a denial).
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { checkUserId, PERMISSIONS } from '../../core/vocabulary';
import { cliConsentPage, consentPage, errorPage, PAGE_HEADERS, permissionsIn, signInPage, type ClientView } from '../pages';
import type { ResolvedOptions } from '../options';
import { isCliClient } from '../cli-client';
import { formProblem, formToken } from './csrf';
import { readForm } from './form';

/** @internal What the interaction routes need. */
export interface InteractionParts {
  readonly provider: Provider;
  readonly options: ResolvedOptions;
  readonly formKey: Buffer;
  clientView(clientId: string): Promise<ClientView>;
  /** A new grant was approved: its session record is written before the browser moves on. */
  granted(grant: { grantId: string; accountId: string; clientId: string; clientName: string; expiresAt: Date }): Promise<void>;
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

const MAX_USERS = 500;

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, PAGE_HEADERS);
  res.end(html);
}

/** @internal The interaction handler: answers `<prefix>/interaction/...` and resolves `true`, else `false`. */
export function interactionRoutes(parts: InteractionParts): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean> {
  const { provider, options: o, formKey } = parts;
  const base = `${o.prefix}/interaction/`;
  const origin = o.issuer;
  const fail = (res: ServerResponse, status: number, title: string, text: string): void =>
    send(res, status, errorPage(o.name, title, text));

  async function users(): Promise<string[]> {
    if (o.signIn.kind !== 'pick') return [];
    const list = await o.signIn.users();
    return Array.isArray(list) ? list.filter((u): u is string => typeof u === 'string').slice(0, MAX_USERS) : [];
  }

  async function showSignIn(req: IncomingMessage, res: ServerResponse, d: Details, error?: string): Promise<void> {
    if (o.signIn.kind === 'own') {
      const user = await o.signIn.currentUser(req);
      if (user === undefined) {
        res.writeHead(303, { location: o.signIn.loginUrl(`${base}${d.uid}`), 'cache-control': 'no-store' });
        res.end();
        return;
      }
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: checkUserId(user, 'signIn.currentUser()') } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const client = await parts.clientView(String(d.params.client_id));
    const html = signInPage({
      app: o.name,
      action: `${base}${d.uid}/login`,
      csrf: formToken(formKey, d.uid, 'login'),
      client,
      users: await users(),
      error,
    });
    send(res, error === undefined ? 200 : 400, html);
  }

  async function showConsent(res: ServerResponse, d: Details): Promise<void> {
    if (isCliClient(o.cli, d.params.client_id)) {
      const user = String(d.session?.accountId);
      const csrf = formToken(formKey, d.uid, 'consent');
      return send(res, 200, cliConsentPage({ app: o.name, action: `${base}${d.uid}/consent`, csrf, user }));
    }
    const details = d.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
    const missing = new Set([...(details.missingOIDCScope ?? []), ...Object.values(details.missingResourceScopes ?? {}).flat()]);
    const asked = permissionsIn(typeof d.params.scope === 'string' ? d.params.scope.split(' ') : []);
    const redirect = typeof d.params.redirect_uri === 'string' ? URL.parse(d.params.redirect_uri) : null;
    const html = consentPage({
      app: o.name,
      action: `${base}${d.uid}/consent`,
      csrf: formToken(formKey, d.uid, 'consent'),
      client: await parts.clientView(String(d.params.client_id)),
      user: String(d.session?.accountId),
      permissions: (asked.length > 0 ? asked : PERMISSIONS).map((permission) => ({ permission, fresh: missing.has(permission) })),
      redirectHost: redirect === null ? undefined : redirect.host,
    });
    send(res, 200, html);
  }

  async function postLogin(req: IncomingMessage, res: ServerResponse, d: Details, fields: Map<string, string>): Promise<void> {
    if (d.prompt.name !== 'login' || o.signIn.kind !== 'pick')
      return fail(res, 400, 'Sign-in failed', 'This sign-in is not waiting for a user.');
    const user = fields.get('user') ?? '';
    let id: string;
    try {
      id = checkUserId(user, 'user');
    } catch {
      return showSignIn(req, res, d, 'That is not a valid user id.');
    }
    const list = await users();
    if (list.length > 0 && !list.includes(id)) return showSignIn(req, res, d, 'That user is not a member here.');
    await provider.interactionFinished(req, res, { login: { accountId: id, remember: false } }, { mergeWithLastSubmission: false });
  }

  async function postConsent(req: IncomingMessage, res: ServerResponse, d: Details, fields: Map<string, string>): Promise<void> {
    if (d.prompt.name !== 'consent') return fail(res, 400, 'Sign-in failed', 'This sign-in is not waiting for a decision.');
    const decision = fields.get('decision');
    if (decision === 'deny') {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'the user denied the request' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    if (decision !== 'approve') return fail(res, 400, 'Sign-in failed', 'Choose Allow or Deny.');
    const details = d.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    const accountId = String(d.session?.accountId);
    const clientId = String(d.params.client_id);
    const existing = d.grantId;
    const grant = existing === undefined ? new provider.Grant({ accountId, clientId }) : await provider.Grant.find(existing);
    if (grant === undefined) return fail(res, 400, 'Sign-in failed', 'This sign-in has expired. Start again from the app.');
    if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
    if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {}))
      grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    if (existing === undefined) {
      const client = await parts.clientView(clientId);
      // A grant lives ttl.Grant (= refreshTokenTtlSec) from now; oidc-provider sets no `exp` on the Grant object.
      const expiresAt = new Date(Date.now() + o.refreshTokenTtlSec * 1000);
      await parts.granted({ grantId, accountId, clientId, clientName: client.name, expiresAt });
    }
    await provider.interactionFinished(req, res, { consent: existing === undefined ? { grantId } : {} }, { mergeWithLastSubmission: true });
  }

  return async (req, res, path) => {
    if (!path.startsWith(base)) return false;
    try {
      await route(req, res, path);
    } catch (err) {
      // A failing sign-in callback, storage or provider call: a page for the person, one line for the log.
      o.log(`oauth: server_error on ${req.method ?? 'GET'} ${base}…: ${err instanceof Error ? err.name : 'unknown'}`);
      if (res.headersSent) res.destroy();
      else fail(res, 500, 'Sign-in failed', 'Something went wrong on this server. Go back to the app and try again.');
    }
    return true;
  };

  async function route(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const [uid, action, ...rest] = path.slice(base.length).split('/');
    if (uid === undefined || uid === '' || rest.length > 0 || (action !== undefined && action !== 'login' && action !== 'consent')) {
      fail(res, 404, 'Not found', 'There is no such page.');
      return;
    }
    const method = req.method ?? 'GET';
    if ((action === undefined && method !== 'GET') || (action !== undefined && method !== 'POST')) {
      fail(res, 405, 'Not allowed', 'This page cannot be used that way.');
      return;
    }
    let d: Details;
    try {
      d = await provider.interactionDetails(req, res);
    } catch {
      fail(res, 400, 'Sign-in expired', 'This sign-in has expired or was started in another browser. Go back to the app and start again.');
      return;
    }
    if (d.uid !== uid) {
      fail(res, 400, 'Sign-in expired', 'This page belongs to another sign-in. Go back to the app and start again.');
      return;
    }
    if (action === undefined) {
      if (d.prompt.name === 'login') await showSignIn(req, res, d);
      else if (d.prompt.name === 'consent') await showConsent(res, d);
      else fail(res, 400, 'Sign-in failed', 'This sign-in needs a step this server does not offer.');
      return;
    }
    const form = await readForm(req);
    if ('problem' in form) {
      fail(res, 400, 'Sign-in failed', `The form could not be used: ${form.problem}.`);
      return;
    }
    const problem = formProblem(req, origin, formKey, uid, action, form.fields.get('csrf'));
    if (problem !== undefined) {
      fail(res, 403, 'Request refused', `The form was refused: ${problem}. Go back to the app and start again.`);
      return;
    }
    if (action === 'login') await postLogin(req, res, d, form.fields);
    else await postConsent(req, res, d, form.fields);
  }
}
