/**
 * `svc mcp-bridge <url>`: a stdio MCP server that forwards every message to a
 * remote MCP endpoint (Streamable HTTP), for MCP clients that start local
 * servers. Unlike a generic bridge it signs a DPoP proof for each request when
 * the credential is a key-bound token, so a bound PAT works through it.
 * @module
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ValidationError } from '../../../errors';
import { defineCommand, type Command } from '../command';
import { credential } from '../credential';
import { keyOfToken, signProof, type ProofKey } from '../proof-key';
import type { CliIO } from '../output';

const BRIDGE_HELP = `Usage: svc mcp-bridge <url>

Serve MCP on stdin and stdout, forwarding every message to the MCP endpoint at
<url> (Streamable HTTP) with your credential: SVC_TOKEN when set, else the
session saved by 'svc auth login'. A token bound to a key (svc token create
--bind-key) is sent with a DPoP proof for each request, signed with the key
SVC_TOKEN_KEY names, else the one kept in SVC_HOME/keys; when the endpoint
asks for its nonce in proofs (svc serve --dpop-nonce), the bridge signs with
the newest one it was given. Start it from an MCP
client's configuration, for example:
  { "command": "svc", "args": ["mcp-bridge", "http://127.0.0.1:8080/mcp"],
    "env": { "SVC_TOKEN": "svc_pat_..." } }
Messages go to stdout only; errors go to stderr.

Options:
  -h, --help   show this help
`;

/** A 401 that asks for the server's nonce (RFC 9449 §9) and names it. */
function asksForNonce(res: Response): boolean {
  return res.status === 401 && /error="use_dpop_nonce"/.test(res.headers.get('www-authenticate') ?? '') && res.headers.has('dpop-nonce');
}

/**
 * A fetch that carries the credential: `Bearer`, or `DPoP` with a fresh proof for each request. The server's
 * newest `DPoP-Nonce` (on any answer, RFC 9449 §8.2) goes into the next proof; a request refused for want of
 * it is signed again with it, once.
 */
function credentialFetch(
  token: string,
  key: ProofKey | undefined,
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  let nonce: string | undefined;
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const send = async (): Promise<Response> => {
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      if (key === undefined) headers.set('authorization', `Bearer ${token}`);
      else {
        headers.set('authorization', `DPoP ${token}`);
        headers.set('dpop', await signProof(key, { method, url, token, nonce }));
      }
      const res = await fetch(input instanceof Request ? input : url, { ...init, method, headers });
      nonce = res.headers.get('dpop-nonce') ?? nonce;
      return res;
    };
    const res = await send();
    // The SDK sends its messages as text: a body that is a stream (or a Request's) cannot be sent twice.
    const again = typeof init?.body === 'string' || init?.body === undefined || init.body === null;
    if (key === undefined || !asksForNonce(res) || !again || input instanceof Request) return res;
    await res.body?.cancel();
    return send();
  };
}

/** Forward until stdin closes. A request the endpoint refuses is answered with a JSON-RPC error, never left waiting. */
async function bridge(url: URL, token: string, key: ProofKey | undefined, io: CliIO): Promise<number> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const local = new StdioServerTransport();
  const remote = new StreamableHTTPClientTransport(url, { fetch: credentialFetch(token, key) });
  const say = (text: string): void => io.stderr(`svc: mcp-bridge: ${text}\n`);
  remote.onmessage = (m) => void local.send(m).catch((err: unknown) => say(String(err)));
  remote.onerror = (err) => say(err.message);
  local.onerror = (err) => say(err.message);
  local.onmessage = (m: JSONRPCMessage) => {
    remote.send(m).catch((err: unknown) => {
      say(err instanceof Error ? err.message : String(err));
      if ('id' in m && 'method' in m) {
        void local.send({
          jsonrpc: '2.0',
          id: m.id,
          error: { code: -32000, message: `the MCP endpoint refused the request: ${err instanceof Error ? err.message : String(err)}` },
        });
      }
    });
  };
  const closed = new Promise<void>((resolve) => {
    local.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await remote.start();
  await local.start();
  await closed;
  await remote.close().catch(() => undefined);
  return 0;
}

function bridgeCommand(url: URL): Command {
  return defineCommand({
    name: 'mcp-bridge',
    summary: 'serve MCP on stdio, forwarding to an MCP endpoint (signs proofs for a bound token)',
    help: BRIDGE_HELP,
    flags: {},
    needs: 'instance',
    async run({ dev, io }) {
      const { token } = await credential(io, dev);
      return bridge(url, token, await keyOfToken(io.env, dev, token), io);
    },
  });
}

/** `svc mcp-bridge <url>`: the URL is a word, the rest the skeleton's flags (`--help`). */
export const mcpBridgeCommand: Command = {
  name: 'mcp-bridge',
  summary: 'serve MCP on stdio, forwarding to an MCP endpoint (signs proofs for a bound token)',
  help: BRIDGE_HELP,
  flags: {},
  run(args, io) {
    const at = args.findIndex((a) => !a.startsWith('-'));
    const rest = args.filter((_, i) => i !== at);
    if (at < 0) {
      if (rest.includes('--help') || rest.includes('-h')) return bridgeCommand(new URL('http://localhost/')).run(rest, io);
      return Promise.reject(new ValidationError([{ path: '<url>', message: 'give the URL of the MCP endpoint' }]));
    }
    let url: URL;
    try {
      url = new URL(args[at] as string);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('not http');
    } catch {
      return Promise.reject(new ValidationError([{ path: '<url>', message: 'expected an absolute http(s) URL' }]));
    }
    return bridgeCommand(url).run(rest, io);
  },
};
