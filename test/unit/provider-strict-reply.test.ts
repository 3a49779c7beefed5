// One attempt through the real OpenAI client against a real HTTP server: the usage object is kept
// whole (reportedUsage), and strictReply (memory-eviction's reading, after upstream's provider)
// makes a reply without string content or a body that is no chat completion a failure without
// retry, while 5xx and 429 stay retryable.
import { expect } from 'chai';
import { systemClock } from '../../src/core/clock.js';
import { openAiCaller } from '../../src/providers/openai-caller.js';
import { strictReply } from '../../src/providers/outcomes.js';
import type { AttemptResult } from '../../src/providers/caller.js';
import { completion, startRecordingEndpoint, type RecordingEndpoint, type Reply } from '../support/recording-endpoint.js';

const USAGE = {
  prompt_tokens: 5,
  completion_tokens: 1,
  total_tokens: 6,
  prompt_cache_hit_tokens: 4,
  prompt_cache_miss_tokens: 1,
  prompt_tokens_details: { cached_tokens: 4 },
};
const REPLIES: Record<string, Reply> = {
  text: completion('Lisbon', USAGE),
  empty: completion('', USAGE),
  null: completion(null, USAGE),
  number: completion(42, USAGE),
  noMessage: { body: { id: 'x', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0 }] } },
  noChoices: { body: { id: 'x', object: 'chat.completion', created: 0, model: 'm', choices: [] } },
  notJson: { body: 'not json at all' },
  server: { status: 503, body: { error: { message: 'busy' } } },
  limited: { status: 429, body: { error: { message: 'slow' } } },
};

describe('provider: reported usage and the strict reply contract (real HTTP server)', () => {
  let server: RecordingEndpoint;
  before(async () => {
    // Each request names the reply it wants in its one message.
    server = await startRecordingEndpoint((r) => {
      const [message] = (r.body?.messages ?? []) as { content: string }[];
      return REPLIES[message!.content]!;
    });
  });
  after(() => server.close());

  const attempt = (kind: string): Promise<AttemptResult> =>
    openAiCaller({ baseURL: server.url, apiKey: 'k', clock: systemClock }).call(
      { model: 'm', messages: [{ role: 'user', content: kind }], tools: [], params: { temperature: 0, max_tokens: 8, stream: false } },
      { signal: new AbortController().signal, timeoutMs: 5000 },
    );

  it('keeps every usage field the provider reported beside the normalised counts', async () => {
    const r = await attempt('text');
    expect(r.ok).to.equal(true);
    if (!r.ok) return;
    expect(r.data.usage).to.deep.equal({ prompt: 5, completion: 1, total: 6, cached: 4 });
    expect(r.data.reportedUsage).to.deep.equal(USAGE);
    expect(strictReply(r)).to.equal(r);
  });

  it('strict: an empty string is a reply (upstream keeps it as the prediction)', async () => {
    const r = strictReply(await attempt('empty'));
    expect(r.ok && r.data.content).to.equal('');
  });

  for (const kind of ['null', 'number', 'noMessage', 'noChoices', 'notJson']) {
    it(`strict: ${kind} fails without retry (not strict: ${kind === 'null' ? 'a success with no content' : 'a retryable failure'})`, async () => {
      const loose = await attempt(kind);
      if (kind === 'null') expect(loose.ok).to.equal(true);
      else expect(!loose.ok && loose.data.retryable).to.equal(true);
      const r = strictReply(loose);
      expect(r.ok).to.equal(false);
      if (!r.ok) expect(r.data).to.deep.include({ retryable: false });
    });
  }

  it('strict: 5xx and 429 stay retryable', async () => {
    for (const kind of ['server', 'limited']) {
      const r = strictReply(await attempt(kind));
      expect(!r.ok && r.data.retryable, kind).to.equal(true);
    }
  });
});
