import { PlayerFailedError } from './errors.js';
import { lastMessageText, type ChatRequest } from './request.js';
import type { Player, PlayerContext, PlayerReply } from './types.js';

/**
 * The built-in answer when no suite player does: honours a forced tool choice with empty
 * arguments, otherwise replies with a short text that says it is scripted.
 */
export const fallbackPlayer: Player = (request, ctx) => {
  const forced = forcedToolName(request);
  if (forced) return { content: null, toolCalls: [{ name: forced, arguments: '{}' }] };
  const last = lastMessageText(request).replace(/\s+/g, ' ').trim();
  const quoted = last.length > 60 ? `${last.slice(0, 57)}...` : last;
  return {
    content: `Scripted reply (seed ${ctx.seed}) to ${request.messages.length} message(s); last: "${quoted}".`,
  };
};

function forcedToolName(request: ChatRequest): string | null {
  const choice = request.tool_choice;
  if (choice && typeof choice === 'object') return choice.type === 'function' ? choice.function.name : null;
  if (choice === 'required') return request.tools?.[0]?.function.name ?? null;
  return null;
}

/** Asks each player in order, then the fallback; a player that throws is a `PlayerFailedError`. */
export function playRequest(request: ChatRequest, players: readonly Player[], ctx: PlayerContext): PlayerReply {
  for (const [i, player] of [...players, fallbackPlayer].entries()) {
    let reply: PlayerReply | null;
    try {
      reply = player(request, ctx);
    } catch (err) {
      throw new PlayerFailedError(`scripted player #${i} (${player.name || 'anonymous'}) threw: ${(err as Error).message}`, { cause: err });
    }
    if (reply) return checkReply(reply, i);
  }
  throw new PlayerFailedError('unreachable: the fallback player always answers');
}

// A player written in plain JS (or with a cast) could hand back anything; fail loudly and early.
function checkReply(reply: PlayerReply, index: number): PlayerReply {
  const bad = (what: string) => new PlayerFailedError(`scripted player #${index} returned ${what}`);
  if (reply.content !== undefined && reply.content !== null && typeof reply.content !== 'string') throw bad('non-string content');
  for (const call of reply.toolCalls ?? []) {
    if (typeof call.name !== 'string' || call.name === '') throw bad('a tool call without a name');
    if (typeof call.arguments !== 'string') throw bad(`non-string arguments for tool ${call.name}`);
  }
  return reply;
}
