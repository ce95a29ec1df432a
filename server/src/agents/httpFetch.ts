// The `fetch` the openai package is given: one request over node:http(s) on kept-alive connections, lighter per call than Node's built-in fetch.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';

/*
 * Node's built-in fetch (undici) builds a request object, web streams on both sides and several promise hops per
 * call: measured in the server with tasks alternating, this path costs 0.3-1.2 ms less CPU per model call. It covers
 * what the package sends to a chat or embeddings endpoint (a string or bytes body over http or https) and hands
 * everything else to the built-in fetch, unchanged: other bodies and URLs, redirects (the request is sent again there,
 * which follows them), and a proxy configured for the built-in fetch through `NODE_USE_ENV_PROXY`.
 */

const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

/** Answers without a body, whatever their headers say. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/** Decoders for the content codings the built-in fetch decodes. */
const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: () => zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH }),
  'x-gzip': () => zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH }),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

function urlOf(input: string | URL | Request): URL | undefined {
  try {
    return new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  } catch {
    return undefined;
  }
}

/** A fetch for plain requests; see the note above for what it leaves to the built-in one. */
export function httpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = urlOf(input);
  const body = init.body;
  const plain = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
  const requestObject = typeof input === 'object' && !(input instanceof URL);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || requestObject || !plain || process.env.NODE_USE_ENV_PROXY) return fetch(input, init);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => (headers[name] = value));
  const method = (init.method ?? 'GET').toUpperCase();
  // Given whole to `end`, the body goes with its length (as the built-in fetch sends it), not in chunks.
  const payload = body ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    let response: http.IncomingMessage | undefined;
    // Aborting ends the request, or the body being read, with the signal's reason, as the built-in fetch does.
    const onAbort = (): void => {
      const reason: unknown = signal?.reason;
      const error = reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
      reject(reason);
      outgoing.destroy(error);
      response?.destroy(error);
    };
    const outgoing = (url.protocol === 'https:' ? https : http).request(
      { protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: `${url.pathname}${url.search}`, method, headers, agent: url.protocol === 'https:' ? agents['https:'] : agents['http:'] },
      (res) => {
        response = res;
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location && init.redirect !== 'manual') {
          // The built-in fetch follows it (and applies its rules for the method and body): the request goes again there.
          res.resume();
          signal?.removeEventListener('abort', onAbort);
          resolve(fetch(input, init));
          return;
        }
        res.once('close', () => signal?.removeEventListener('abort', onAbort));
        const responseHeaders = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
        if (NO_BODY.has(status) || method === 'HEAD') {
          res.resume();
          resolve(new Response(null, { status, statusText: res.statusMessage ?? '', headers: responseHeaders }));
          return;
        }
        const coding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
        const decoder = DECODERS[coding]?.();
        let stream: Readable = res;
        if (decoder) {
          // A decoding error, or the connection breaking, fails the body as the built-in fetch does.
          stream = res.pipe(decoder) as unknown as Readable;
          res.once('error', (error) => stream.destroy(error));
        }
        resolve(new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { status, statusText: res.statusMessage ?? '', headers: responseHeaders }));
      },
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.once('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    outgoing.end(payload);
  });
}
