/**
 * Real loopback servers for the leak endpoints: a node:http server around a
 * node handler, and @hono/node-server around a fetch handler (what Bun, Deno
 * or a worker would run), each with the world (an Auth on one of the three
 * stores, its events) the endpoint works on.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Auth, AuthEvent } from '../../src/service';
import type { TokenStore } from '../../src/stores';
import { testAuth } from '../support/auth';
import type { Clock } from '../support/clock';

type TokenLeakedEvent = Extract<AuthEvent, { type: 'token.leaked' }>;

export interface World {
  auth: Auth;
  clock: Clock;
  store: TokenStore;
  events: AuthEvent[];
}

/** An Auth over `store`, with a pinned clock and its events kept. */
export async function world(store: TokenStore): Promise<World> {
  const { auth, clock, events } = await testAuth({ everyone: { orgs: { acme: 'owner' } }, tokens: store });
  return { auth, clock, store, events };
}

/** The `token.leaked` events among `events`. */
export const leakedEvents = (events: AuthEvent[]): TokenLeakedEvent[] =>
  events.filter((e): e is TokenLeakedEvent => e.type === 'token.leaked');

export interface Running {
  url: string;
  close(): Promise<void>;
  /** Promises of the handler calls (each must resolve: no handler rejects). */
  calls: Promise<unknown>[];
}

function listening(server: Server, calls: Promise<unknown>[]): Promise<Running> {
  return new Promise((resolve) => {
    const done = (): void => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        calls,
        close: () =>
          new Promise<void>((r) => {
            server.close(() => r());
            server.closeAllConnections();
          }),
      });
    };
    if (server.listening) done();
    else server.once('listening', done);
  });
}

/** node:http on 127.0.0.1, every request handed to `handle`. */
export function nodeServer(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<Running> {
  const calls: Promise<unknown>[] = [];
  const server = createServer((req, res) => void calls.push(handle(req, res)));
  server.listen(0, '127.0.0.1');
  return listening(server, calls);
}

/** @hono/node-server on 127.0.0.1 around a fetch handler. */
export function fetchServer(handle: (req: Request) => Promise<Response>): Promise<Running> {
  const calls: Promise<unknown>[] = [];
  const server = serve({
    fetch: (req: Request) => {
      const p = handle(req);
      calls.push(p);
      return p;
    },
    port: 0,
    hostname: '127.0.0.1',
  }) as Server;
  return listening(server, calls);
}
