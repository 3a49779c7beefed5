// The answers fold (input, output, expected, verdict and reason of each job) and the cutting of its
// text: pure logic, so a blob store in a Map stands in for the log's.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { DataOf, StoredEvent } from '../../src/events/index.js';
import { canonicalJson } from '../../src/core/canonical.js';
import { BlobNotFoundError } from '../../src/log/index.js';
import { clip, clipHashed, DEFAULT_MAX_TEXT_CHARS, maxTextCharsOf, renderPrompt } from '../../src/projections/answer-text.js';
import { answerFieldsOf, answersFold, finishAnswers, type JobAnswer } from '../../src/projections/answers.js';
import { requestedData, succeededData, Timeline } from '../support/build-events.js';
import { formatJob, wrap } from '../../src/cli/show.js';

const sha = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');

/** Message blobs as the provider effect stores them (canonical JSON of each message), by hash. */
class Blobs {
  readonly map = new Map<string, Uint8Array>();
  put(message: object): string {
    const bytes = Buffer.from(canonicalJson(message)!);
    this.map.set(sha(bytes), bytes);
    return sha(bytes);
  }
  async get(hash: string): Promise<Uint8Array> {
    const b = this.map.get(hash);
    if (!b) throw new BlobNotFoundError(hash);
    return b;
  }
}

function runStarted(config: Record<string, unknown>, jobs: { jobId: string; meta?: Record<string, unknown> }[]): DataOf<'RunStarted'> {
  return {
    suite: 'dataset',
    config,
    configHash: 'a'.repeat(64),
    seed: 1,
    orderSeed: 1,
    jobs: jobs.map((j, i) => ({ jobId: j.jobId, caseId: j.jobId.split(':')[0]!, arm: 'default', repetition: 1, seed: i, ...(j.meta ? { meta: j.meta } : {}) })),
    model: { name: 'm', scripted: true, baseUrlEnv: null, apiKeyEnv: null },
    concurrency: 1,
    provenance: {},
  };
}

async function answersOf(events: readonly StoredEvent[], blobs?: Blobs): Promise<Map<string, JobAnswer>> {
  let s = answersFold.initialState();
  for (const e of events) s = answersFold.evolve(s, e);
  return new Map((await finishAnswers(s, blobs)).map((a) => [a.job_id, a]));
}

describe('answers: text cut to report.maxTextChars, with the hash of the whole', () => {
  it('keeps a short text as it is and cuts a long one, saying how much is left', () => {
    expect(clip('hello', 5)).to.equal('hello');
    expect(clip('hello world', 5)).to.equal('hello … [6 more characters]');
    expect(clipHashed('hello world', 5)).to.deep.equal({ text: 'hello … [6 more characters]', sha256: sha('hello world') });
  });

  it('counts code points, so a surrogate pair is never split', () => {
    const text = '😀😀😀x';
    expect(clip(text, 2)).to.equal('😀😀 … [2 more characters]');
    expect(clip(text, 4)).to.equal(text);
  });

  it('reads the limit from the config, else 2000', () => {
    expect(maxTextCharsOf({ report: { maxTextChars: 12 } })).to.equal(12);
    expect(maxTextCharsOf({})).to.equal(DEFAULT_MAX_TEXT_CHARS);
    expect(DEFAULT_MAX_TEXT_CHARS).to.equal(2000);
  });

  it('renders one user message as it is, a conversation by role, and leaves the system message out', () => {
    expect(
      renderPrompt([
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi?' },
      ]),
    ).to.equal('hi?');
    expect(
      renderPrompt([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: 'c' },
      ]),
    ).to.equal('[user] a\n\n[assistant] b\n\n[user] c');
  });
});

describe('answers fold', () => {
  const PASS = 'p:default:1';
  const FAIL = 'f:default:1';
  const ERR = 'e:default:1';
  const ART = 'a:default:1';
  const OPEN = 'u:default:1';

  function log(blobs: Blobs, max = 36): StoredEvent[] {
    const t = new Timeline('run-answers');
    const expected = { answer: 'forty-two', more: [1, 2, 3] };
    t.add(
      undefined,
      0,
      'RunStarted',
      runStarted({ report: { maxTextChars: max } }, [
        { jobId: PASS, meta: { expected: '4' } },
        { jobId: FAIL, meta: { expected } },
        { jobId: ERR },
        { jobId: ART },
        { jobId: OPEN },
      ]),
    );
    const sys = blobs.put({ role: 'system', content: 'You answer.' });
    const long = 'What is the answer to life, the universe and everything?';
    for (const [id, q] of [
      [PASS, 'What is 2 + 2?'],
      [FAIL, long],
      [ERR, 'Q'],
      [ART, 'Write a file'],
      [OPEN, 'Never ends'],
    ] as const) {
      t.add(id, 1, 'JobStarted', { caseId: id.split(':')[0]!, arm: 'default', repetition: 1, seed: 1 });
      t.add(id, 2, 'ProviderCallRequested', requestedData('call/1', { attribution: 'main', messages: [sys, blobs.put({ role: 'user', content: q })] }));
    }
    t.add(PASS, 3, 'ProviderCallSucceeded', succeededData('call/1', { content: '4' }));
    t.add(PASS, 4, 'CheckEvaluated', { checkId: 'exact', visibility: 'hidden', passed: true, detail: 'output equals expected' });
    t.add(PASS, 5, 'JobGraded', { passed: true, checksPassed: 1, checksTotal: 1, firstRevisionPassed: null });
    // A judge's reply is never the job's output, nor its request the job's input.
    t.add(PASS, 6, 'ProviderCallRequested', requestedData('judge/1', { attribution: 'grading', messages: [blobs.put({ role: 'user', content: 'judge' })] }));
    t.add(PASS, 7, 'ProviderCallSucceeded', succeededData('judge/1', { content: 'VERDICT: PASS' }));
    t.add(PASS, 8, 'JobSucceeded', { passed: true });

    t.add(FAIL, 3, 'ProviderCallSucceeded', succeededData('call/1', { content: 'I believe the answer is probably forty-one.' }));
    t.add(FAIL, 4, 'CheckEvaluated', { checkId: 'format', visibility: 'public', passed: true, detail: 'ok' });
    t.add(FAIL, 5, 'CheckEvaluated', { checkId: 'exact', visibility: 'hidden', passed: false, detail: 'expected 42' });
    t.add(FAIL, 6, 'CheckEvaluated', { checkId: 'tone', visibility: 'hidden', passed: false, detail: 'too long' });
    t.add(FAIL, 7, 'JobGraded', { passed: false, checksPassed: 1, checksTotal: 3, firstRevisionPassed: null });
    t.add(FAIL, 8, 'JobSucceeded', { passed: false });

    t.add(ERR, 3, 'ProviderCallFailed', {
      callId: 'call/1',
      kind: 'connection',
      status: null,
      retryAfterMs: null,
      message: 'refused',
      retryable: false,
      latencyMs: 1,
    });
    t.add(ERR, 4, 'JobFailed', { reason: 'provider_failed', message: 'connection refused' });

    t.add(ART, 3, 'ProviderCallSucceeded', succeededData('call/1', { content: null }));
    t.add(ART, 4, 'ArtifactRevised', { revision: 1, content: 'draft', sha256: sha('draft') });
    t.add(ART, 5, 'ArtifactRevised', { revision: 2, content: 'final', sha256: sha('final') });
    t.add(ART, 6, 'WorkerStopped', { reason: 'answered', turns: 2, answer: 'done' });
    t.add(ART, 7, 'CheckEvaluated', { checkId: 'a', visibility: 'hidden', passed: true, detail: 'fine' });
    t.add(ART, 8, 'CheckEvaluated', { checkId: 'b', visibility: 'hidden', passed: true, detail: 'fine' });
    t.add(ART, 9, 'JobGraded', { passed: true, checksPassed: 2, checksTotal: 2, firstRevisionPassed: true });
    t.add(ART, 10, 'JobSucceeded', { passed: true });
    return t.events;
  }

  it('a passed job: its prompt without the system message, the last reply of the agent, expected, the only check as reason', async () => {
    const blobs = new Blobs();
    const a = (await answersOf(log(blobs), blobs)).get(PASS)!;
    expect(a).to.deep.equal({
      job_id: PASS,
      case_id: 'p',
      arm: 'default',
      repetition: 1,
      status: 'succeeded',
      input: 'What is 2 + 2?',
      input_sha256: sha('What is 2 + 2?'),
      output: '4',
      output_sha256: sha('4'),
      expected: '4',
      verdict: 'pass',
      reason: 'exact: output equals expected',
    });
  });

  it('a failed job: input and output cut to the limit with the hash of the whole; the first failing check decides', async () => {
    const blobs = new Blobs();
    const a = (await answersOf(log(blobs), blobs)).get(FAIL)!;
    const long = 'What is the answer to life, the universe and everything?';
    expect(a.input).to.equal(`${long.slice(0, 36)} … [${long.length - 36} more characters]`);
    expect(a.input_sha256).to.equal(sha(long));
    expect(a.output).to.equal('I believe the answer is probably for … [7 more characters]');
    expect(a.output_sha256).to.equal(sha('I believe the answer is probably forty-one.'));
    // A non-text expected value is shown as canonical JSON, cut like the rest.
    expect(a.expected).to.equal('{"answer":"forty-two","more":[1,2,3] … [1 more character]');
    expect(a).to.deep.include({ verdict: 'fail', reason: 'exact: expected 42 (and 1 more failing checks)' });
  });

  it('a job that ended in an error is decided by its failure; a suite without expected values has no expected', async () => {
    const blobs = new Blobs();
    const a = (await answersOf(log(blobs), blobs)).get(ERR)!;
    expect(a).to.deep.include({
      status: 'failed',
      input: 'Q',
      output: null,
      output_sha256: null,
      verdict: 'error',
      reason: 'provider_failed: connection refused',
    });
    expect(a).to.not.have.property('expected');
  });

  it('the last artifact revision is the output, over the final answer; several passed checks say so', async () => {
    const blobs = new Blobs();
    const a = (await answersOf(log(blobs), blobs)).get(ART)!;
    expect(a).to.deep.include({ output: 'final', output_sha256: sha('final'), verdict: 'pass', reason: 'all 2 checks passed' });
  });

  it('an unfinished job has no verdict; without the blob store (or with a blob gone) the input is null', async () => {
    const blobs = new Blobs();
    const events = log(blobs);
    expect((await answersOf(events, blobs)).get(OPEN)).to.deep.include({ status: 'unfinished', verdict: null, reason: null, input: 'Never ends' });
    expect((await answersOf(events)).get(PASS)).to.deep.include({ input: null, input_sha256: null, output: '4' });
    blobs.map.clear();
    expect((await answersOf(events, blobs)).get(PASS)).to.deep.include({ input: null, input_sha256: null });
  });

  it("an external agent's input is its task file's messages; its answer is the output", async () => {
    const blobs = new Blobs();
    const task = blobs.put({
      run: 'r',
      job: 'x:agent:1',
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'Do the task' },
      ],
      tools: [],
    });
    const t = new Timeline('run-agent');
    t.add(undefined, 0, 'RunStarted', runStarted({}, [{ jobId: 'x:agent:1' }]));
    t.add('x:agent:1', 1, 'JobStarted', { caseId: 'x', arm: 'agent', repetition: 1, seed: 1 });
    t.add('x:agent:1', 2, 'AgentLaunched', { agent: 'agent', command: ['node', 'a.js'], task });
    t.add(
      'x:agent:1',
      3,
      'ProviderCallRequested',
      requestedData('agent/1', { attribution: 'main', messages: [blobs.put({ role: 'user', content: 'rewritten' })] }),
    );
    t.add('x:agent:1', 4, 'ProviderCallSucceeded', succeededData('agent/1', { content: 'thinking' }));
    const stream = { blob: null, bytes: 0, truncated: false };
    t.add('x:agent:1', 5, 'AgentExited', {
      reason: 'answered',
      code: 0,
      signal: null,
      answer: 'the answer',
      modelCalls: 1,
      toolCalls: 0,
      stdout: stream,
      stderr: stream,
    });
    t.add('x:agent:1', 6, 'JobSucceeded', { passed: null });
    const a = (await answersOf(t.events, blobs)).get('x:agent:1')!;
    expect(a).to.deep.include({ input: 'Do the task', input_sha256: sha('Do the task'), output: 'the answer', verdict: null, reason: null });
  });

  it('a scenario-scored job is decided by its scenario, its first shortfall the reason', async () => {
    const t = new Timeline('run-scenario');
    t.add(undefined, 0, 'RunStarted', runStarted({}, [{ jobId: 'c:x:1' }]));
    t.add('c:x:1', 1, 'JobStarted', { caseId: 'c', arm: 'x', repetition: 1, seed: 1 });
    t.add('c:x:1', 2, 'EnvironmentChanged', { callId: 'w/t1/tool-0', effect: 'submit', target: 'submission', value: '{"answer":"7"}', terminal: true });
    t.add('c:x:1', 3, 'ScenarioScored', {
      success: false,
      submitted: true,
      stateChecks: [{ checkId: 'record:total', passed: false, expected: '12', actual: '7' }],
      evidence: [],
      staleMisuses: [],
      duplicateEffects: [],
    });
    t.add('c:x:1', 4, 'JobGraded', { passed: true, checksPassed: 1, checksTotal: 1, firstRevisionPassed: null });
    t.add('c:x:1', 5, 'JobSucceeded', { passed: true });
    const a = (await answersOf(t.events)).get('c:x:1')!;
    expect(a).to.deep.include({ output: '{"answer":"7"}', verdict: 'fail', reason: 'state check record:total: expected 12, got 7' });
  });
});

describe('evalog show: the format of one job', () => {
  it('a header line per job, then labelled fields, wrapped under their label', () => {
    const a: JobAnswer = {
      job_id: 'q:default:1',
      case_id: 'q',
      arm: 'default',
      repetition: 1,
      status: 'succeeded',
      input: 'one two three four five six',
      input_sha256: 'x',
      output: 'line one\nline two',
      output_sha256: 'y',
      expected: 'z',
      verdict: 'fail',
      reason: 'exact: expected "z"',
    };
    expect(formatJob(a, 40)).to.equal(
      [
        '== q:default:1 · case q · arm default · succeeded · FAIL ',
        '  reason:   exact: expected "z"',
        '  input:    one two three four five six',
        '  output:   line one',
        '            line two',
        '  expected: z',
        '',
        '',
      ].join('\n'),
    );
    expect(wrap('aaa bbb ccc', 7)).to.deep.equal(['aaa bbb', 'ccc']);
    expect(wrap('abcdefghij', 4)).to.deep.equal(['abcd', 'efgh', 'ij']);
  });
});

describe('answer fields of a suite whose data may not be published (rowText hashes)', () => {
  const a: JobAnswer = {
    job_id: 'q:confidence:1',
    case_id: 'q',
    arm: 'confidence',
    repetition: 1,
    status: 'succeeded',
    input: 'QUESTION: a licensed question',
    input_sha256: 'i'.repeat(64),
    output: 'an answer built from its facts',
    output_sha256: 'o'.repeat(64),
    expected: 'the reference answer',
    verdict: 'pass',
    reason: 'exact: matched',
  };
  it('keep the hashes, verdict and reason, and no text', () => {
    expect(answerFieldsOf(a, 'hashes')).to.deep.equal({
      input_sha256: 'i'.repeat(64),
      output_sha256: 'o'.repeat(64),
      verdict: 'pass',
      reason: 'exact: matched',
    });
    expect(answerFieldsOf(a)).to.include({ input: 'QUESTION: a licensed question', expected: 'the reference answer' });
  });
});
