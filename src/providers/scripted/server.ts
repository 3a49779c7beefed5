import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SCRIPTED_CREATED } from './completion.js';
import { handleChat, handleProtocol, type ChatContext } from './chat.js';
import { ScriptedConfigError } from './errors.js';
import { FaultPlan } from './faults.js';
import { errorBody, readBody, sendJson } from './http.js';
import { resolveOptions } from './options.js';
import { StatsRecorder } from './stats.js';
import type { FaultRule, ScriptedModel, ScriptedModelOptions } from './types.js';

/** Starts the scripted model on 127.0.0.1; resolves once it is listening. */
export async function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const opts = resolveOptions(options);
  const stats = new StatsRecorder();
  let plan = new FaultPlan(options.faults ?? []);
  const closing = new AbortController();
  // Every request paused for latency listens for the close (and stops listening when it ends):
  // dozens at once is the normal load, not a leak to warn about.
  setMaxListeners(0, closing.signal);
  const held = new Set<ServerResponse>();
  const inflight = new Set<Promise<void>>();

  const hold = (res: ServerResponse) => {
    held.add(res);
    // At the cap the connection is dropped rather than answered: still no response, as promised.
    const timer = setTimeout(() => res.destroy(), opts.timeoutCapMs);
    res.on('close', () => {
      clearTimeout(timer);
      held.delete(res);
    });
  };
  const chat: ChatContext = { options: opts, faults: () => plan, stats, closing: closing.signal, hold };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/v1/chat/completions' && req.method === 'POST') return handleChat(chat, req, res);
    if (path === '/v1/models' && req.method === 'GET') return sendModels(res, opts.models);
    const protocol = path === undefined ? undefined : options.protocols?.[path];
    if (protocol && req.method === 'POST') return handleProtocol(chat, protocol, path!, req, res);
    if (path === '/_scripted/stats' && req.method === 'GET') return sendJson(res, 200, stats.snapshot());
    if (path === '/_scripted/reset' && req.method === 'POST') {
      stats.reset();
      return sendJson(res, 200, { ok: true });
    }
    if (path === '/_scripted/faults' && req.method === 'POST') {
      // Lets a test in another process change the faults; regexes are written as '/source/flags'.
      plan = new FaultPlan(JSON.parse(await readBody(req, 1024 * 1024)) as FaultRule[]);
      return sendJson(res, 200, { ok: true });
    }
    stats.status(404);
    sendJson(res, 404, errorBody(`No route for ${req.method} ${path} on the scripted model.`, 'invalid_request_error', null, 'not_found'));
  };

  const server = createServer((req, res) => {
    const work = route(req, res).catch((err: unknown) => {
      // A bug, or a bad /_scripted/faults body: answer 500 rather than crash the whole server.
      const status = err instanceof ScriptedConfigError || err instanceof SyntaxError ? 400 : 500;
      if (!res.headersSent) sendJson(res, status, errorBody(`scripted model: ${(err as Error).message}`, 'server_error'));
      else res.destroy();
    });
    inflight.add(work);
    void work.finally(() => inflight.delete(work));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | null = null;
  const close = async () => {
    closing.abort();
    for (const res of held) res.destroy();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    // Let answers being written finish (latency waits end at once on abort), but not forever.
    await Promise.race([Promise.allSettled([...inflight]), new Promise((r) => setTimeout(r, 2000).unref())]);
    server.closeAllConnections();
    await stopped;
  };

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    seed: opts.seed,
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
    setFaults: (rules) => {
      plan = new FaultPlan(rules);
    },
    close: () => (closed ??= close()),
  };
}

function sendModels(res: ServerResponse, models: readonly string[]): void {
  // owned_by is how a client tells evalog's scripted model from a real endpoint (see SCRIPTED_OWNER).
  const data = models.map((id) => ({ id, object: 'model', created: SCRIPTED_CREATED, owned_by: 'evalog-scripted' }));
  sendJson(res, 200, { object: 'list', data });
}
