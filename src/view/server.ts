import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventLog } from '../log/index.js';
import { loadAllPlugins } from '../app/index.js';
import { comparePage, jobPage, messageBlob, runSummary, runView, runsList } from './api.js';
import { loadAssets, type Asset } from './assets.js';
import { isLoopbackHost, loopbackHostHeader, newToken, requestToken, TOKEN_COOKIE, tokenMatches } from './auth.js';
import { RunCatalog, type CatalogMemory, type DiscoverRuns } from './catalog.js';
import type { RunDigest } from './digest.js';
import { compareRunsPage, type CompareRunsQuery } from './compare-runs.js';
import { HttpError } from './errors.js';
import { jobNeighbours, rowsDownload, runPageView, shared } from './run-page.js';
import { agentOutputPage } from './agent-output.js';
import { workspacePage } from './workspace.js';
import { tableQuery } from './run-table.js';

/** Default port of `evalog view`. */
export const DEFAULT_VIEW_PORT = 7600;

/** Options of `startViewServer`. */
export interface ViewServerOptions {
  log: EventLog;
  /** Lists the log's run ids now (folders with a log, or JetStream's runs). */
  discover: DiscoverRuns;
  /** Default 127.0.0.1. Any other than a loopback name or address needs a token. */
  host?: string;
  /** Default DEFAULT_VIEW_PORT; 0 picks a free port. */
  port?: number;
  /** Required off loopback: generated when absent. On loopback, set only when asked for. */
  token?: string;
  /** Runs held in memory at most (default DEFAULT_MAX_RUNS); the least recently viewed is released first. */
  maxRuns?: number;
  /** Where unexpected errors go (their details are never sent to the browser). */
  onError?: (err: unknown) => void;
}

/** A running viewer. */
export interface ViewServer {
  /** Base URL (without the token). */
  url: string;
  host: string;
  port: number;
  /** null on loopback without a token. */
  token: string | null;
  /** Which runs are held now: for tests and benches, never served. */
  memory(): CatalogMemory;
  close(): Promise<void>;
}

const HEARTBEAT_MS = 15_000;

// No inline script or style and nothing from elsewhere: log content shown by the app (model
// replies, tool output) can never run as code, and the page loads nothing off this server.
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** Starts the viewer's HTTP server: the app, its JSON API and server-sent events. */
export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const host = options.host ?? '127.0.0.1';
  const loopback = isLoopbackHost(host);
  const token = options.token ?? (loopback ? null : newToken());
  // The viewer shows runs of any suite: every plugin is loaded before the registry is asked.
  await loadAllPlugins();
  const assets = await loadAssets();
  const catalog = new RunCatalog(options.log, options.discover, options.maxRuns);
  catalog.start();
  const streams = new Set<ServerResponse>();
  const logStatuses = async () => new Map((await options.log.runs()).map((r) => [r.runId, r.status] as const));
  const pageStatuses = shared(logStatuses, 1000);
  const onError = options.onError ?? ((err: unknown) => process.stderr.write(`evalog view: ${(err as Error)?.stack ?? String(err)}\n`));

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof HttpError) return send(res, err.status, { ...err.body, error: err.message });
      onError(err);
      send(res, 500, { error: "internal error (see the viewer's terminal)" });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://viewer.invalid');
    if (token === null && !loopbackHostHeader(req.headers.host)) throw new HttpError(403, 'this viewer answers loopback names only');
    if (token !== null && !tokenMatches(token, requestToken(req, url))) throw new HttpError(401, 'a token is required (?token=… or the Authorization header)');
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'read-only');
    const path = url.pathname;
    if (!path.startsWith('/api/')) return serveAsset(res, path === '/' ? '/index.html' : path, url, assets, token);
    const parts = path.slice('/api/'.length).split('/').map(decodePart);
    const q = (k: string) => url.searchParams.get(k);
    if (parts.length === 1 && parts[0] === 'runs') return send(res, 200, { runs: await runsList(catalog, logStatuses) });
    if (parts.length === 1 && parts[0] === 'stream') return stream(req, res, q('run'));
    if (parts.length === 1 && parts[0] === 'compare') return send(res, 200, await compareRunsPage(catalog, compareQuery(url.searchParams)));
    if (parts[0] !== 'runs' || parts.length < 2) throw new HttpError(404, 'no such API');
    const runId = parts[1]!;
    if (parts.length === 2) return send(res, 200, await runView(catalog, runId, pageStatuses));
    if (parts.length === 3 && parts[2] === 'page') return send(res, 200, await runPageView(catalog, runId, tableQuery(url.searchParams), pageStatuses));
    if (parts.length === 3 && (parts[2] === 'rows.csv' || parts[2] === 'rows.jsonl')) {
      const format = parts[2] === 'rows.csv' ? 'csv' : 'jsonl';
      return sendFile(
        res,
        `${runId}-rows.${format}`,
        format === 'csv' ? 'text/csv' : 'application/x-ndjson',
        await rowsDownload(catalog, runId, tableQuery(url.searchParams), format),
      );
    }
    if (parts.length === 5 && parts[2] === 'jobs' && parts[4] === 'agent-output')
      return send(res, 200, await agentOutputPage(catalog, runId, parts[3]!, options.log.blobs(runId)));
    if (parts.length === 5 && parts[2] === 'jobs' && parts[4] === 'workspace')
      return send(res, 200, await workspacePage(catalog, runId, parts[3]!, options.log.blobs(runId)));
    if (parts.length === 5 && parts[2] === 'jobs' && parts[4] === 'around')
      return send(res, 200, await jobNeighbours(catalog, runId, parts[3]!, tableQuery(url.searchParams)));
    if (parts.length === 3 && parts[2] === 'summary') return send(res, 200, await runSummary(catalog, runId));
    if (parts.length === 3 && parts[2] === 'compare') return send(res, 200, await comparePage(catalog, runId, q('a'), q('b')));
    if (parts.length === 4 && parts[2] === 'jobs') return send(res, 200, await jobPage(catalog, runId, parts[3]!));
    if (parts.length === 4 && parts[2] === 'blobs') return send(res, 200, await messageBlob(catalog, runId, parts[3]!, (h) => options.log.blobs(runId).get(h)));
    throw new HttpError(404, 'no such API');
  }

  async function stream(req: IncomingMessage, res: ServerResponse, runId: string | null): Promise<void> {
    const change = (d: RunDigest) =>
      res.write(`event: change\ndata: ${JSON.stringify({ runId: d.runId, status: d.status, events: d.events, lastSeq: d.lastSeq })}\n\n`);
    // A watched run stays held while its page is open, whatever else is viewed meanwhile.
    const watched = runId === null ? null : await catalog.watch(runId, change);
    if (runId !== null && !watched) throw new HttpError(404, `no run ${JSON.stringify(runId)}`);
    const run = watched?.run ?? null;
    res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
    res.write('retry: 1000\n\n');
    const stop = watched ? watched.stop : catalog.onChange(change);
    // A change between the page's fetch and this subscription would otherwise go unseen.
    if (run) change(run.digest());
    const beat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
    streams.add(res);
    req.on('close', () => {
      clearInterval(beat);
      stop();
      streams.delete(res);
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_VIEW_PORT, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/`,
    host,
    port,
    token,
    memory: () => catalog.memory(),
    async close() {
      catalog.close();
      for (const res of streams) res.end();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

// `?runs=a,b&arm=A&force=1&seed=N`: run ids never hold a comma, so a list is unambiguous.
function compareQuery(q: URLSearchParams): CompareRunsQuery {
  const seed = q.get('seed');
  if (seed !== null && !/^\d{1,15}$/.test(seed)) throw new HttpError(400, 'seed must be a whole number ≥ 0');
  const arm = q.get('arm');
  return {
    runs: (q.get('runs') ?? '').split(',').filter(Boolean),
    arm: arm === null || arm === '' ? undefined : arm,
    force: q.get('force') === '1',
    seed: seed === null ? undefined : Number(seed),
  };
}

function decodePart(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    throw new HttpError(404, 'bad path');
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': bytes.length });
  res.end(bytes);
}

/** A download: the browser saves it under `name` rather than showing it. */
function sendFile(res: ServerResponse, name: string, type: string, text: string): void {
  const bytes = Buffer.from(text);
  const disposition = `attachment; filename="${name.replace(/[^\w.-]/g, '_')}"`;
  res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': `${type}; charset=utf-8`, 'Content-Length': bytes.length, 'Content-Disposition': disposition });
  res.end(bytes);
}

function serveAsset(res: ServerResponse, path: string, url: URL, assets: Map<string, Asset>, token: string | null): void {
  const asset = assets.get(path);
  if (!asset) throw new HttpError(404, 'not found');
  const headers: Record<string, string | number> = { ...SECURITY_HEADERS, 'Content-Type': asset.type, 'Content-Length': asset.body.length };
  // The page was opened with the token in its URL: a cookie lets its scripts and API calls carry it.
  if (token !== null && path === '/index.html' && url.searchParams.has('token')) {
    headers['Set-Cookie'] = `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`;
  }
  res.writeHead(200, headers);
  res.end(asset.body);
}
