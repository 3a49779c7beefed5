import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { composeAnswer, completionBody, type Answer } from './completion.js';
import { InvalidChatRequestError, PlayerFailedError } from './errors.js';
import type { FaultPlan } from './faults.js';
import { answerKey, canonicalJson, requestHash, rngFromKey } from './hash.js';
import { BodyTooLargeError, errorBody, pause, readBody, sendJson, sendText } from './http.js';
import { latencyFor, omitUsageFor, type ResolvedOptions } from './options.js';
import { playRequest } from './players.js';
import { lastMessageText, parseChatRequest, type ChatRequest } from './request.js';
import type { StatsRecorder } from './stats.js';
import { completionChunks, sseData } from './stream.js';
import type { FaultRule, ScriptedProtocol } from './types.js';

/** What the chat handler needs from its server. */
export interface ChatContext {
  options: ResolvedOptions;
  faults(): FaultPlan;
  stats: StatsRecorder;
  /** Aborted when the server starts closing. */
  closing: AbortSignal;
  /** Keeps a response open without answering (the `timeout` fault). */
  hold(res: ServerResponse): void;
}

const BODY_LIMIT = 32 * 1024 * 1024;

/** Handles POST /v1/chat/completions. */
export async function handleChat(ctx: ChatContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  ctx.stats.request(callKeyOf(req));
  const parsed = await readRequest(req);
  if ('status' in parsed) return reply(ctx, res, parsed.status, parsed.body);
  const { body, request } = parsed;
  const hash = requestHash(body);
  const seed = ctx.options.seed;
  const occurrence = ctx.stats.received(hash);
  // Faults are picked on arrival, before any latency, so their counters follow arrival order.
  const fault = ctx.faults().pick({ lastMessageText: lastMessageText(request), canonicalBody: canonicalJson(body), hash, seed, occurrence });
  if (fault) ctx.stats.fault(fault.kind);
  if (!(await pause(latencyFor(ctx.options.latencyMs, seed, hash), ctx.closing))) return void res.destroy();
  if (res.destroyed) return; // the client gave up while we waited

  switch (fault?.kind) {
    case 'rate_limit': {
      const retryAfter = String(fault.retryAfterSeconds ?? 1);
      return reply(ctx, res, 429, errorBody('Rate limit reached (scripted fault).', 'rate_limit_error', null, 'rate_limit_exceeded'), {
        'retry-after': retryAfter,
      });
    }
    case 'server_error':
      return reply(ctx, res, fault.status ?? 500, errorBody('The server had an error (scripted fault).', 'server_error'));
    case 'reset':
      return void req.socket.destroy();
    case 'timeout':
      return ctx.hold(res);
    default:
      return answer(ctx, res, body, request, hash, fault, callKeyOf(req));
  }
}

/**
 * Handles a request at another protocol's route: translated onto a chat completion request by
 * `protocol`, played as one (no faults), the completion rendered back. Counted per path and per
 * X-Evalog-Call like chat's, so a test sees what reached the server over each route.
 */
export async function handleProtocol(ctx: ChatContext, protocol: ScriptedProtocol, path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const callKey = callKeyOf(req);
  ctx.stats.protocolRequest(path, callKey);
  let text: string;
  try {
    text = await readBody(req, BODY_LIMIT);
  } catch (err) {
    if (err instanceof BodyTooLargeError) return reply(ctx, res, 413, errorBody(err.message, 'invalid_request_error'));
    throw err;
  }
  ctx.stats.protocolBody(path, createHash('sha256').update(text, 'utf8').digest('hex'));
  const opened = protocol.open(text);
  if ('answer' in opened) {
    ctx.stats.status(opened.answer.status);
    return sendText(res, opened.answer.status, opened.answer.body, opened.answer.contentType, opened.answer.headers);
  }
  let request: ChatRequest;
  try {
    request = parseChatRequest(opened.chat);
  } catch (err) {
    if (!(err instanceof InvalidChatRequestError)) throw err;
    return reply(ctx, res, 400, errorBody(err.message, 'invalid_request_error', err.param, 'invalid_value'));
  }
  const hash = requestHash(opened.chat);
  const { seed } = ctx.options;
  ctx.stats.received(hash);
  if (!(await pause(latencyFor(ctx.options.latencyMs, seed, hash), ctx.closing))) return void res.destroy();
  if (res.destroyed) return;
  const key = answerKey(opened.chat, seed);
  let ans: Answer;
  try {
    const playerReply = playRequest(request, ctx.options.players, { rng: rngFromKey(key), seed });
    ans = composeAnswer(request, playerReply, { key, seed, maxTokensTruncation: ctx.options.maxTokensTruncation, truncate: false, omitUsage: false });
  } catch (err) {
    if (!(err instanceof PlayerFailedError)) throw err;
    return reply(ctx, res, 500, errorBody(err.message, 'scripted_player_error'));
  }
  const wire = opened.render(completionBody(ans, false) as unknown as Record<string, unknown>);
  if (wire.status === 200) res.on('finish', () => ctx.stats.completed(hash, false, callKey));
  ctx.stats.status(wire.status);
  sendText(res, wire.status, wire.body, wire.contentType, wire.headers);
}

type Parsed = { body: Record<string, unknown>; request: ChatRequest } | { status: number; body: unknown };

async function readRequest(req: IncomingMessage): Promise<Parsed> {
  let text: string;
  try {
    text = await readBody(req, BODY_LIMIT);
  } catch (err) {
    if (err instanceof BodyTooLargeError) return { status: 413, body: errorBody(err.message, 'invalid_request_error') };
    throw err;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { status: 400, body: errorBody('We could not parse the JSON body of your request.', 'invalid_request_error') };
  }
  try {
    return { body: body as Record<string, unknown>, request: parseChatRequest(body) };
  } catch (err) {
    if (!(err instanceof InvalidChatRequestError)) throw err;
    return { status: 400, body: errorBody(err.message, 'invalid_request_error', err.param, 'invalid_value') };
  }
}

function reply(ctx: ChatContext, res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  ctx.stats.status(status);
  sendJson(res, status, body, headers);
}

// The caller's name for the attempt (see CallOptions.callKey); absent for other clients.
function callKeyOf(req: IncomingMessage): string | null {
  const v = req.headers['x-evalog-call'];
  return typeof v === 'string' && v.length > 0 && v.length <= 512 ? v : null;
}

function answer(
  ctx: ChatContext,
  res: ServerResponse,
  body: Record<string, unknown>,
  request: ChatRequest,
  hash: string,
  fault: FaultRule | null,
  callKey: string | null,
): void {
  const { seed } = ctx.options;
  const key = answerKey(body, seed);
  let ans: Answer;
  try {
    const playerReply = playRequest(request, ctx.options.players, { rng: rngFromKey(key), seed });
    const omitUsage = fault?.kind === 'no_usage' || omitUsageFor(ctx.options.omitUsage, seed, hash);
    ans = composeAnswer(request, playerReply, {
      key,
      seed,
      maxTokensTruncation: ctx.options.maxTokensTruncation,
      truncate: fault?.kind === 'truncated',
      omitUsage,
    });
  } catch (err) {
    if (!(err instanceof PlayerFailedError)) throw err;
    reply(ctx, res, 500, errorBody(err.message, 'scripted_player_error'));
    return;
  }
  const malformed = fault?.kind === 'malformed';
  const empty = fault?.kind === 'empty_choices';
  // Only a whole, usable completion counts as completed; the count happens once the bytes are out.
  if (!malformed && !empty) res.on('finish', () => ctx.stats.completed(hash, ans.usage === null, callKey));
  ctx.stats.status(200);
  if (request.stream) return void streamAnswer(res, ans, request.stream_options?.include_usage === true, malformed, empty);
  const json = JSON.stringify(completionBody(ans, empty));
  // A body cut in the middle of the JSON, as a broken proxy would deliver it.
  sendText(res, 200, malformed ? json.slice(0, Math.floor(json.length / 2)) : json, 'application/json');
}

function streamAnswer(res: ServerResponse, ans: Answer, includeUsage: boolean, malformed: boolean, empty: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunks = completionChunks(ans, includeUsage, empty).map((c) => JSON.stringify(c));
  if (malformed) {
    const first = chunks[0] ?? '{}';
    return void res.end(sseData(first) + sseData(first.slice(0, Math.floor(first.length / 2))));
  }
  res.end(chunks.map(sseData).join('') + sseData('[DONE]'));
}
