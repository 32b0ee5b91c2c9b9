/**
 * A raw HTTP/1.1 client for the guard fuzz (test/fuzz/guards.fuzz.test.ts): fetch and node's own
 * client refuse to send what a hostile client sends (a header twice, control characters, an odd
 * Host, a method that is not a token), so requests are written as bytes on a socket and the first
 * answer is parsed by hand.
 */
import { connect } from 'node:net';

/** One request as the fuzz builds it; `headers` are written in order, duplicates and all. */
export interface RawRequest {
  method: string;
  target: string;
  headers: [string, string][];
  body: string;
  /** How the body is framed: Content-Length, chunked, both (a smuggling attempt), or not at all. */
  framing: 'length' | 'chunked' | 'both' | 'none';
}

/** The first answer on the connection, or `closed` when the server closed it without one. */
export type RawAnswer = { status: number; headers: Map<string, string[]>; body: string; raw: string } | 'closed';

/** The bytes of a request. `Connection: close` comes first, so the server ends the connection after its answer. */
export function encode(req: RawRequest): Buffer {
  const lines = [`${req.method} ${req.target} HTTP/1.1`, 'Connection: close'];
  for (const [name, value] of req.headers) lines.push(`${name}: ${value}`);
  const body = Buffer.from(req.body, 'latin1');
  let payload = body;
  if (req.framing === 'length' || req.framing === 'both') lines.push(`Content-Length: ${body.length}`);
  if (req.framing === 'chunked' || req.framing === 'both') {
    lines.push('Transfer-Encoding: chunked');
    payload = Buffer.concat([
      body.length > 0 ? Buffer.from(`${body.length.toString(16)}\r\n`, 'latin1') : Buffer.alloc(0),
      body,
      Buffer.from(body.length > 0 ? '\r\n0\r\n\r\n' : '0\r\n\r\n', 'latin1'),
    ]);
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
}

/** Send `bytes` to 127.0.0.1:`port`; resolves with the first answer once the server closes. Rejects on a hang. */
export function exchange(port: number, bytes: Buffer, timeoutMs = 15_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms (a hang)`));
    }, timeoutMs);
    socket.on('data', (d: Buffer) => chunks.push(d));
    // A reset after the answer (the server closing with our bytes unread) is still an answer.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parse(Buffer.concat(chunks)));
    });
    socket.write(bytes);
  });
}

function parse(data: Buffer): RawAnswer {
  const text = data.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return 'closed';
  const [statusLine = '', ...headerLines] = text.slice(0, end).split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine);
  if (!m) return 'closed';
  const headers = new Map<string, string[]>();
  for (const line of headerLines) {
    const at = line.indexOf(':');
    const name = line.slice(0, at).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(at + 1).trim()]);
  }
  let rest = data.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
  if (headers.get('transfer-encoding')?.some((v) => /chunked/i.test(v))) rest = unchunk(rest);
  else {
    const length = Number(headers.get('content-length')?.[0]);
    if (Number.isInteger(length)) rest = rest.subarray(0, length);
  }
  return { status: Number(m[1]), headers, body: rest.toString('utf8'), raw: text };
}

function unchunk(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isInteger(size) || size <= 0) break;
    out.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}
