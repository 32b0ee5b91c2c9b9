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
import { canEverHold } from '../../core/policy';
import { checkUserId, PERMISSIONS, type Permission } from '../../core/vocabulary';
import {
  cliConsentPage,
  consentPage,
  deviceTooManyPage,
  errorPage,
  pageHeaders,
  permissionField,
  permissionsIn,
  signInPage,
  type ClientView,
} from '../pages';
import type { ResolvedOptions } from '../options';
import type { GrantFacts } from '../records';
import { isCliClient } from '../cli-client';
import { attemptAddress, type UserCodeAttempts } from './attempts';
import { formProblem, formToken } from './csrf';
import { readForm } from './form';
import { closing, writeAnswer } from '../../http';

export { attemptAddress, userCodeAttempts, type UserCodeAttempts } from './attempts';

/** @internal What the interaction routes need. */
export interface InteractionParts {
  readonly provider: Provider;
  readonly options: ResolvedOptions;
  readonly formKey: Buffer;
  clientView(clientId: string): Promise<ClientView>;
  /** A new grant was approved: its session record is written before the browser moves on. */
  granted(grant: GrantFacts): Promise<void>;
  /** A grant was replaced by a new one of the same client and person: its record and tokens end now. */
  replaced(grantId: string): Promise<void>;
  /** Wrong user codes per address on the device page (checked here, before oidc-provider looks the code up). */
  readonly attempts: UserCodeAttempts;
}

/** The interaction details' parts this module reads. */
interface ConsentDetails {
  missingOIDCScope?: string[];
  missingOIDCClaims?: string[];
  missingResourceScopes?: Record<string, string[]>;
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

const MAX_USERS = 500;

/** A page, or a redirect (`body` undefined), written by the HTTP layer's one writer; `unread`: close the connection after it. */
function send(
  res: ServerResponse,
  status: number,
  body: string | undefined,
  headers: Readonly<Record<string, string>>,
  unread = false,
): void {
  const answer = { status, headers, body };
  writeAnswer(res, unread ? closing(answer) : answer);
}

/** @internal The interaction handler: answers `<prefix>/interaction/...` and resolves `true`, else `false`. */
export function interactionRoutes(parts: InteractionParts): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean> {
  const { provider, options: o, formKey } = parts;
  const headers = pageHeaders(o.look);
  const base = `${o.prefix}/interaction/`;
  const origin = o.issuer;
  const fail = (res: ServerResponse, status: number, title: string, text: string, unread = false): void =>
    send(res, status, errorPage(o.look, title, text), headers, unread);

  async function users(): Promise<string[]> {
    if (o.signIn.kind !== 'pick') return [];
    const list = await o.signIn.users();
    return Array.isArray(list) ? list.filter((u): u is string => typeof u === 'string').slice(0, MAX_USERS) : [];
  }

  async function showSignIn(req: IncomingMessage, res: ServerResponse, d: Details, error?: string): Promise<void> {
    if (o.signIn.kind === 'own') {
      const user = await o.signIn.currentUser(req);
      if (user === undefined) {
        return send(res, 303, undefined, { location: o.signIn.loginUrl(`${base}${d.uid}`), 'cache-control': 'no-store' });
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
      app: o.look,
      action: `${base}${d.uid}/login`,
      csrf: formToken(formKey, d.uid, 'login'),
      client,
      users: await users(),
      error,
    });
    send(res, error === undefined ? 200 : 400, html, headers);
  }

  /** The permissions the user's roles allow anywhere; `undefined` when that cannot be known now. */
  async function heldBy(user: string): Promise<Set<Permission> | undefined> {
    try {
      const p = await o.auth.principalFor(user);
      return new Set(PERMISSIONS.filter((permission) => canEverHold(p, permission)));
    } catch {
      return undefined; // an unknown or failing membership source: the page says nothing either way
    }
  }

  /** The svc permissions the request asks for (all seven when it names none), in the documented order. */
  const askedIn = (d: Details): Permission[] => {
    const asked = permissionsIn(typeof d.params.scope === 'string' ? d.params.scope.split(' ') : []);
    return asked.length > 0 ? asked : [...PERMISSIONS];
  };

  async function showConsent(res: ServerResponse, d: Details, error?: string): Promise<void> {
    const user = String(d.session?.accountId);
    const csrf = formToken(formKey, d.uid, 'consent');
    if (isCliClient(o.cli, d.params.client_id)) {
      return send(res, 200, cliConsentPage({ app: o.look, action: `${base}${d.uid}/consent`, csrf, user }), headers);
    }
    const details = d.prompt.details as ConsentDetails;
    const missing = new Set([...(details.missingOIDCScope ?? []), ...Object.values(details.missingResourceScopes ?? {}).flat()]);
    const held = await heldBy(user);
    const redirect = typeof d.params.redirect_uri === 'string' ? URL.parse(d.params.redirect_uri) : null;
    const html = consentPage({
      app: o.look,
      action: `${base}${d.uid}/consent`,
      csrf,
      client: await parts.clientView(String(d.params.client_id)),
      user,
      permissions: askedIn(d).map((permission) => ({ permission, fresh: missing.has(permission), held: held?.has(permission) })),
      redirectHost: redirect === null ? undefined : redirect.host,
      error,
    });
    send(res, error === undefined ? 200 : 400, html, headers);
  }

  /** The resources the request is for: as named, else the server's default for this client (config.ts). */
  function resourcesOf(d: Details, details: ConsentDetails): string[] {
    const named = d.params.resource;
    const list = Array.isArray(named) ? named.map(String) : typeof named === 'string' ? [named] : [];
    const fallback = isCliClient(o.cli, d.params.client_id) ? o.issuer : (o.resources[0] ?? o.issuer);
    return [...new Set([...(list.length > 0 ? list : [fallback]), ...Object.keys(details.missingResourceScopes ?? {})])];
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
    const details = d.prompt.details as ConsentDetails;
    const accountId = String(d.session?.accountId);
    const clientId = String(d.params.client_id);
    const asked = askedIn(d);
    // The command line asks for full access, all or nothing (cli-client.ts); any other client gets what stayed ticked.
    const ticked = isCliClient(o.cli, clientId) ? asked : asked.filter((p) => fields.get(permissionField(p)) === 'yes');
    if (ticked.length === 0) return showConsent(res, d, 'Tick at least one permission to allow, or choose Deny.');
    const unticked = asked.filter((p) => !ticked.includes(p));
    // Every decision is a new grant that holds exactly what was allowed now (never the union with an
    // earlier one: an unticked permission must leave the token), and it replaces the grant it follows.
    const grant = new provider.Grant({ accountId, clientId });
    // The permissions are scopes of the server too (config.ts), so they are decided at both levels.
    const oidcScopes = (typeof d.params.scope === 'string' ? d.params.scope.split(' ') : []).filter(
      (s) => s === 'openid' || s === 'offline_access',
    );
    grant.addOIDCScope([...oidcScopes, ...ticked].join(' '));
    if (unticked.length > 0) grant.rejectOIDCScope(unticked.join(' '));
    if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
    for (const indicator of resourcesOf(d, details)) {
      grant.addResourceScope(indicator, ticked.join(' '));
      // Rejected, not left out: oidc-provider would otherwise ask again at once for what was unticked.
      if (unticked.length > 0) grant.rejectResourceScope(indicator, unticked.join(' '));
    }
    const grantId = await grant.save();
    const client = await parts.clientView(clientId);
    // A grant lives ttl.Grant (= refreshTokenTtlSec) from now; oidc-provider sets no `exp` on the Grant object.
    const expiresAt = new Date(Date.now() + o.refreshTokenTtlSec * 1000);
    const redirect = typeof d.params.redirect_uri === 'string' ? URL.parse(d.params.redirect_uri)?.host : undefined;
    await parts.granted({
      grantId,
      accountId,
      clientId,
      clientName: client.name,
      host: redirect ?? client.site ?? 'device',
      permissions: isCliClient(o.cli, clientId) ? 'full access' : ticked,
      expiresAt,
    });
    if (typeof d.grantId === 'string' && d.grantId !== grantId) await parts.replaced(d.grantId);
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  const devicePath = `${o.prefix}/device`;

  return async (req, res, path) => {
    if (path === devicePath && req.method === 'POST') {
      // RFC 8628 section 5.1: past the limit of wrong codes, a posted code is not even looked up.
      const wait = parts.attempts.waitFor(attemptAddress(req, o.trustProxy));
      if (wait === 0) return false;
      send(res, 429, deviceTooManyPage(o.look, wait), { ...headers, 'retry-after': String(wait) }, true);
      return true;
    }
    if (!path.startsWith(base)) return false;
    try {
      await route(req, res, path);
    } catch (err) {
      // A failing sign-in callback, storage or provider call: a page for the person, one line for the log.
      o.log(`oauth: server_error on ${req.method ?? 'GET'} ${base}…: ${err instanceof Error ? err.name : 'unknown'}`);
      fail(res, 500, 'Sign-in failed', 'Something went wrong on this server. Go back to the app and try again.');
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
      fail(res, 400, 'Sign-in failed', `The form could not be used: ${form.problem}.`, form.unread);
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
