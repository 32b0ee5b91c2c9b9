/**
 * Slow-body attack (slowloris on the body): a client that sends its headers and then trickles, or
 * never ends, its body must not hold a handler's read (and its memory) open. The one body reader
 * of the endpoints has a deadline: the node request is destroyed, the fetch stream cancelled, and
 * a body cut by the deadline is never read as a whole one.
 */
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { readFetchBytes, readNodeBody } from '../../src/http';

describe('slow-body attack: the body reader has a deadline', () => {
  it('fetch: a stream that never ends rejects at the deadline, never resolves as a short body', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"a":'));
      },
    });
    const started = Date.now();
    await expect(readFetchBytes({ headers: new Headers(), body }, 1024, 100)).rejects.toThrow(/did not arrive within 100 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('node: a body that stops halfway rejects at the deadline and the request is destroyed', async () => {
    let outcome: Promise<unknown> = Promise.resolve();
    let destroyed = false;
    const server = createServer((req) => {
      outcome = readNodeBody(req, 1024, 100).then(
        () => 'resolved',
        (e: unknown) => e,
      );
      req.once('close', () => (destroyed = req.destroyed));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
    try {
      await new Promise((r) => setTimeout(r, 400));
      expect(await outcome).toBeInstanceOf(Error);
      expect(destroyed).toBe(true);
    } finally {
      socket.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
