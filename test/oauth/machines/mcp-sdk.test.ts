/**
 * The MCP SDK 2.x machine providers (`ClientCredentialsProvider` with a secret,
 * `PrivateKeyJwtProvider` with a key) against a real `svc serve` on loopback:
 * the service account and its clients made with the CLI, tools listed and called
 * as the account; disabling the account refuses the token endpoint and the live
 * token on the next request.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, ClientCredentialsProvider, PrivateKeyJwtProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, serve, svc, tempHome } from '../../cli/helpers';

let home = '';
let cleanup: () => Promise<void> = async () => {};
let running: Awaited<ReturnType<typeof serve>> | undefined;
let secretClient = { id: '', secret: '' };
let keyClient = { id: '', privateJwk: {} as Record<string, unknown> };

async function ok(args: string[]): Promise<string> {
  const run = await svc(home, args);
  expect(run.code, `svc ${args.join(' ')}: ${run.stderr}`).toBe(0);
  return run.stdout;
}

beforeAll(async () => {
  ({ home, cleanup } = await tempHome());
  await ok(['member', 'set', '--user', 'olive', '--resource', 'acme', '--role', 'owner']);
  await ok(['auth', 'login', '--user', 'olive']);
  await ok(['org', 'service-accounts', 'create', 'acme', 'ci-bot', '--role', 'editor']);
  const [id, secret] = (await ok(['org', 'service-accounts', 'clients', 'create', 'acme', 'ci-bot', '--secret'])).trim().split('\n');
  secretClient = { id: id as string, secret: secret as string };
  const pair = await generateKeyPair('ES256', { extractable: true });
  const file = join(home, 'ci.pub.jwk');
  await writeFile(file, JSON.stringify(await exportJWK(pair.publicKey)));
  keyClient = {
    id: (await ok(['org', 'service-accounts', 'clients', 'create', 'acme', 'ci-bot', '--jwks', file])).trim(),
    privateJwk: { ...(await exportJWK(pair.privateKey)) },
  };
  running = await serve(home);
}, 120_000);

afterAll(async () => {
  if (running !== undefined) {
    running.child.kill('SIGTERM');
    await exited(running.child);
  }
  await cleanup();
});

async function connect(authProvider: ClientCredentialsProvider | PrivateKeyJwtProvider): Promise<Client> {
  const client = new Client({ name: 'ci', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${running?.url}/mcp`), { authProvider }));
  return client;
}

describe('the MCP SDK 2.x machine providers against svc serve', { timeout: 120_000 }, () => {
  it('ClientCredentialsProvider (secret) and PrivateKeyJwtProvider (key) list and call tools as sa:acme/ci-bot', async () => {
    const issuer = `${running?.url}`;
    const bySecret = await connect(
      new ClientCredentialsProvider({
        clientId: secretClient.id,
        clientSecret: secretClient.secret,
        scope: 'repo:read',
        expectedIssuer: issuer,
      }),
    );
    expect((await bySecret.listTools()).tools.map((t) => t.name)).toContain('whoami');
    expect((await bySecret.callTool({ name: 'whoami', arguments: {} })).structuredContent).toMatchObject({ user: 'sa:acme/ci-bot' });
    await bySecret.close();

    const byKey = await connect(
      new PrivateKeyJwtProvider({
        clientId: keyClient.id,
        privateKey: keyClient.privateJwk,
        algorithm: 'ES256',
        scope: 'repo:read',
        expectedIssuer: issuer,
      }),
    );
    expect((await byKey.callTool({ name: 'whoami', arguments: {} })).structuredContent).toMatchObject({ user: 'sa:acme/ci-bot' });
    await byKey.close();
  });

  it('disabling the account refuses its live token on the next request and the token endpoint after it', async () => {
    const issuer = `${running?.url}`;
    const client = await connect(
      new ClientCredentialsProvider({
        clientId: secretClient.id,
        clientSecret: secretClient.secret,
        scope: 'repo:read',
        expectedIssuer: issuer,
      }),
    );
    await client.callTool({ name: 'whoami', arguments: {} });
    await ok(['org', 'service-accounts', 'update', 'acme', 'ci-bot', '--disable']);
    await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toBeDefined();
    await client.close().catch(() => undefined);
    const body = new URLSearchParams({ grant_type: 'client_credentials', resource: `${issuer}/mcp` });
    const basic = Buffer.from(`${encodeURIComponent(secretClient.id)}:${encodeURIComponent(secretClient.secret)}`).toString('base64');
    const res = await fetch(`${issuer}/oauth/token`, { method: 'POST', body, headers: { authorization: `Basic ${basic}` } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
  });
});
