// @ts-check
// GET a URL and parse its JSON, through HTTPS_PROXY / HTTP_PROXY when they are set (NO_PROXY
// honoured). Node 20's fetch ignores those variables, and a scoped extension whose
// permissions.net is a host list reaches the network only through the proxy zot gives it.
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';

/** The proxy for `target`, or undefined: direct. */
function proxyFor(target, env = process.env) {
  const value =
    target.protocol === 'https:'
      ? (env.HTTPS_PROXY ?? env.https_proxy)
      : (env.HTTP_PROXY ?? env.http_proxy);
  if (!value) return undefined;
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const bypass = (env.NO_PROXY ?? env.no_proxy ?? '')
    .split(',')
    .map((entry) =>
      entry
        .trim()
        .toLowerCase()
        .replace(/^\*?\./, ''),
    )
    .some(
      (entry) => entry !== '' && (entry === '*' || host === entry || host.endsWith(`.${entry}`)),
    );
  return bypass ? undefined : new URL(value);
}

/**
 * Resolves `{ status, body }` (body parsed as JSON when the status is 200). Rejects on network
 * errors, a refused tunnel and after `timeoutMs`.
 * @param {string} url
 * @param {number} timeoutMs
 * @returns {Promise<{ status: number, body: any }>}
 */
export function getJson(url, timeoutMs) {
  const target = new URL(url);
  const proxy = proxyFor(target);
  const signal = AbortSignal.timeout(timeoutMs);
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  return new Promise((resolve, reject) => {
    const finish = (/** @type {http.IncomingMessage} */ response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('error', reject);
      response.on('end', () => {
        const status = response.statusCode ?? 0;
        if (status !== 200) return resolve({ status, body: undefined });
        try {
          resolve({ status, body: JSON.parse(text) });
        } catch (error) {
          reject(error);
        }
      });
    };
    const path = `${target.pathname}${target.search}`;
    if (!proxy) {
      const client = target.protocol === 'https:' ? https : http;
      client.get(target, { signal }, finish).on('error', reject);
    } else if (target.protocol === 'http:') {
      // A plain request to the proxy, naming the whole URL.
      http
        .get(
          {
            host: proxy.hostname,
            port: proxy.port,
            path: target.href,
            headers: { host: target.host },
            signal,
          },
          finish,
        )
        .on('error', reject);
    } else {
      // CONNECT, then TLS to the host through the tunnel.
      http
        .request({
          method: 'CONNECT',
          host: proxy.hostname,
          port: proxy.port,
          path: `${target.hostname}:${port}`,
          signal,
        })
        .on('connect', (answer, socket) => {
          if (answer.statusCode !== 200) {
            socket.destroy();
            return reject(
              new Error(`the proxy refused ${target.hostname}:${port} (HTTP ${answer.statusCode})`),
            );
          }
          https
            .get(
              {
                host: target.hostname,
                path,
                signal,
                agent: false,
                createConnection: () => tls.connect({ socket, servername: target.hostname }),
              },
              finish,
            )
            .on('error', reject);
        })
        .on('error', reject)
        .end();
    }
  });
}
