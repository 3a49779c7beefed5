import { SCRIPTED_CREATED, type Answer } from './completion.js';

/** Splits text into at most `parts` pieces of near-equal length (code points); '' gives none. */
export function splitPieces(text: string, parts: number): string[] {
  const points = [...text];
  if (points.length === 0) return [];
  const size = Math.ceil(points.length / parts);
  const pieces: string[] = [];
  for (let i = 0; i < points.length; i += size) pieces.push(points.slice(i, i + size).join(''));
  return pieces;
}

/**
 * The `chat.completion.chunk` objects of a streamed answer, in order: role, content deltas,
 * tool call deltas (id and name first, then argument pieces), the finish chunk, and with
 * `includeUsage` a last chunk with empty choices and the usage. `[DONE]` is the caller's.
 */
export function completionChunks(answer: Answer, includeUsage: boolean, emptyChoices = false): Record<string, unknown>[] {
  // OpenAI sends `usage: null` on every chunk when usage was asked for; leave it out entirely
  // when no usage chunk will follow (omitted usage), as a provider that does not report usage would.
  const usageWillFollow = includeUsage && answer.usage !== null;
  const chunk = (choices: unknown[], usage?: unknown): Record<string, unknown> => {
    const out: Record<string, unknown> = {
      id: answer.id,
      object: 'chat.completion.chunk',
      created: SCRIPTED_CREATED,
      model: answer.model,
      system_fingerprint: answer.systemFingerprint,
      choices,
    };
    if (usageWillFollow) out.usage = usage ?? null;
    return out;
  };
  const delta = (d: Record<string, unknown>, finish: string | null = null) => chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);

  if (emptyChoices) return [chunk([]), ...(usageWillFollow ? [chunk([], answer.usage)] : [])];
  const chunks = [delta({ role: 'assistant', content: answer.content === null ? null : '', refusal: null })];
  for (const piece of splitPieces(answer.content ?? '', 3)) chunks.push(delta({ content: piece }));
  answer.toolCalls.forEach((call, index) => {
    chunks.push(delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of splitPieces(call.arguments, 2)) chunks.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(delta({}, answer.finishReason));
  if (usageWillFollow) chunks.push(chunk([], answer.usage));
  return chunks;
}

/** Frames one SSE event carrying `data`. */
export function sseData(data: string): string {
  return `data: ${data}\n\n`;
}
