/**
 * Each piece of the edge exists once (issue: one writer per runtime, one body reader, one onError
 * guard, one loopback rule). A copy written again in an endpoint is how the edges drifted apart
 * before, so the places that may hold each piece are listed here, and a new one fails this test
 * until it uses the one in `src/http` (or `src/core/network`) instead. Comments are not code: TSDoc
 * examples may show `res.writeHead(404).end()` to a reader.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : full.endsWith('.ts') ? [full] : [];
  });
}

/** Every code line of src/ (comment lines left out), with its file. */
const lines = sources(join(root, 'src')).flatMap((file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => !/^\s*(?:\*|\/\/|\/\*\*)/.test(l))
    .map((text) => ({ file: relative(root, file), text })),
);

const where = (pattern: RegExp): string[] => [...new Set(lines.filter((l) => pattern.test(l.text)).map((l) => l.file))].sort();

describe('each piece of the edge exists once', () => {
  it('one node writer: writeHead and a Content-Length only in src/http/answer.ts', () => {
    expect(where(/\.writeHead\(|setHeader\(\s*['"]content-length['"]|['"]content-length['"]\s*:/i)).toEqual(['src/http/answer.ts']);
  });

  it('one fetch writer: no JSON Response is made outside answerResponse (src/http/answer.ts)', () => {
    expect(where(/new Response\(\s*JSON\.stringify/)).toEqual([
      // The Hono adapter is at its cap of names from src/http (scripts/check-adapter-imports.mjs).
      'src/adapters/hono/index.ts',
      // Not an answer: a trusted issuer's keys given in process, handed to the keys fetcher as its Response.
      'src/tokens/issuers/keys.ts',
    ]);
  });

  it('one request body reader: a request stream is read only in src/http/body.ts', () => {
    expect(where(/\.on\(\s*['"]data['"]|for await \(const \w+ of req\b|\.body as ReadableStream/)).toEqual([
      'src/http/body.ts',
      // Not requests: answers of other servers, read under the outbound cap (a socket's, a fetch Response's).
      'src/oauth/cimd/fetch.ts',
      'src/outbound/fetch-json.ts',
    ]);
  });

  it('one onError guard: a caller hook is called under try/catch only in src/http/answer.ts', () => {
    expect(where(/\b(?:onError|hook)\?\.\(/)).toEqual(['src/http/answer.ts']);
  });

  it('one loopback rule: defined only in src/core/network', () => {
    expect(where(/function isLoopback\w*\(/).every((f) => f.startsWith('src/core/network/'))).toBe(true);
  });

  it('one URL rule: a service URL is judged only in src/core/network/url.ts (serviceUrl)', () => {
    expect(where(/'must use https unless its host is a loopback address'/)).toEqual(['src/core/network/url.ts']);
  });

  it('one refusal text table: the answers of every edge take their text from src/http/errors.ts', () => {
    expect(where(/'the token has expired/)).toEqual(['src/http/errors.ts']);
    expect(where(/Record<AuthenticationReason, string>/)).toEqual(['src/http/errors.ts']);
    // Not the CLI's REASON_TEXT: it speaks to a person at a terminal of their own saved credential
    // ("SVC_TOKEN was not accepted: it has expired"), not an HTTP answer.
  });
});
