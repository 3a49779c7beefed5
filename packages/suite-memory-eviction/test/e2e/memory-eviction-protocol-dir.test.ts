// `evalog memory-eviction … --protocol-dir DIR` in child processes, on a stand-in deermem_eviction/
// folder in evalog's own words (test/support/deermem-protocol.ts; unpinned, so --allow-unpinned),
// against a real HTTP server that records every request body: the pin refusal, the exact request
// body and its fingerprint, credentials from the protocol's variables only, upstream's reply
// contract (no content = a failed row, malformed bodies not retried, retries on 5xx and 429 after
// 2 s), every usage field kept, and qa_run.json with the published fields.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { exists, FileEventLog, runPythonSync } from 'evalog';
import { readJsonl, runEvalogHere, tempDir } from '../../../../test/support/cli.js';
import { type StandInProtocol, writeStandInProtocol } from '../../../../test/support/deermem-protocol.js';
import { makeTestSetup } from '../../../../test/support/longmemeval.js';
import { DEERMEM_PR4789, publishedFolder } from '../../../../test/support/published.js';
import { completion, type RecordedRequest, type RecordingEndpoint, type Reply, startRecordingEndpoint } from '../../../../test/support/recording-endpoint.js';

// Beside the project root, never copied in (test/support/published.ts: skipped when absent, failed when required).
const PUBLISHED = publishedFolder(DEERMEM_PR4789);
const PUBLISHED_CONFIG_SHA = 'e0bcd1581be8457c614a4159b87304e54501d48a7e07990b02f1f6f8627fa026';
const KEY = 'sk-test-deermem-SECRET';
/** No variable of another endpoint may stand in for the protocol's own. */
const OTHER_ENDPOINTS = {
  OPENAI_API_KEY: 'sk-openai-OTHER',
  OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
  EVALOG_BASE_URL: 'http://127.0.0.1:9/v1',
  EVALOG_API_KEY: 'sk-evalog-OTHER',
  EVALOG_MODEL: 'other-model',
};

// Official cases whose replies break upstream's contract in one way each (by the question the request asks).
const NULL_CONTENT = '01493427';
const NUMBER_CONTENT = '06db6396';
const NO_MESSAGE = '07741c44';
const NOT_JSON = '07741c45';
const SERVER_ERROR_ONCE = '08e075c7';
const RATE_LIMITED_ONCE = '08f4fc43';
const EMPTY_CONTENT = '0bb5a684';
/** What a DeepSeek-like provider reports: cache hit/miss counts beside the usual ones, and nested details. */
const USAGE = {
  prompt_tokens: 900,
  completion_tokens: 3,
  total_tokens: 903,
  prompt_cache_hit_tokens: 640,
  prompt_cache_miss_tokens: 260,
  prompt_tokens_details: { cached_tokens: 640 },
  completion_tokens_details: { reasoning_tokens: 0 },
};

function caseOf(r: RecordedRequest): string | null {
  const messages = (r.body?.messages ?? []) as { content?: string }[];
  return /What is the answer to question (\S+)\?/.exec(messages.at(-1)?.content ?? '')?.[1] ?? null;
}

function reply(r: RecordedRequest): Reply {
  const first = r.callKey?.endsWith('/attempt-1') === true;
  switch (caseOf(r)) {
    case NULL_CONTENT:
      return completion(null, USAGE);
    case NUMBER_CONTENT:
      return completion(42, USAGE);
    case NO_MESSAGE:
      return { body: { id: 'x', object: 'chat.completion', created: 0, model: 'deepseek-v4-flash', choices: [{ index: 0, finish_reason: 'stop' }] } };
    case NOT_JSON:
      return { body: 'this is not a JSON body' };
    case SERVER_ERROR_ONCE:
      return first ? { status: 500, body: { error: { message: 'boom' } } } : completion('INSUFFICIENT', USAGE, 'deepseek-v4-flash');
    case RATE_LIMITED_ONCE:
      // Upstream waits its 2 s and reads no Retry-After; 30 s would be honoured by evalog's default.
      return first
        ? { status: 429, headers: { 'retry-after': '30' }, body: { error: { message: 'slow down' } } }
        : completion('INSUFFICIENT', USAGE, 'deepseek-v4-flash');
    case EMPTY_CONTENT:
      return completion('', USAGE, 'deepseek-v4-flash');
    default:
      return completion('INSUFFICIENT', USAGE, 'deepseek-v4-flash');
  }
}

/** sha256 of Python's json.dumps(body, ensure_ascii=False, sort_keys=True) with the float temperature, by python3 itself. */
function pythonFingerprints(bodies: string[]): string[] {
  const script = [
    'import hashlib, json, sys',
    'for line in sys.stdin.read().splitlines():',
    '    body = json.loads(line)',
    '    body["temperature"] = float(body["temperature"])',
    '    print(hashlib.sha256(json.dumps(body, ensure_ascii=False, sort_keys=True).encode()).hexdigest())',
  ].join('\n');
  const out = runPythonSync({ script, input: bodies.join('\n'), timeoutMs: 20_000 });
  if (out.code !== 0) throw new Error(`python3 failed: ${out.stderr}`);
  return out.stdout.trim().split('\n');
}

describe('evalog memory-eviction --protocol-dir on a stand-in upstream folder (CLI in process, a recording HTTP server)', function () {
  this.timeout(300_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let setup: ReturnType<typeof makeTestSetup>;
  let standIn: StandInProtocol;
  let endpoint: RecordingEndpoint;
  let data: string[];

  before(async () => {
    tmp = await tempDir();
    setup = makeTestSetup();
    standIn = writeStandInProtocol(join(tmp.dir, 'deermem_eviction'), { datasetSha256: setup.dataset.sha256 });
    endpoint = await startRecordingEndpoint(reply);
    data = ['--protocol-dir', standIn.dir, '--allow-unpinned', '--dataset', setup.dataset.path];
  });
  after(async () => {
    await endpoint?.close();
    setup?.cleanup();
    await tmp?.cleanup();
  });

  it('validate-contracts --allow-unpinned prints the protocol id, the four hashes and "unpinned protocol"', async () => {
    const r = await runEvalogHere(['memory-eviction', 'validate-contracts', '--protocol-dir', standIn.dir, '--allow-unpinned'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include('validated 40 official and 5 synthetic cases\n');
    expect(r.stdout).to.include('protocol evalog-deermem-offline-v1: unpinned protocol');
    for (const [name, hash] of Object.entries(standIn.artifacts)) expect(r.stdout).to.match(new RegExp(`^${name} +${hash}  `, 'm'));
  });

  it('without --allow-unpinned: exit 2, one line naming each file with the published and the actual hash', async () => {
    const r = await runEvalogHere(['memory-eviction', 'validate-contracts', '--protocol-dir', standIn.dir], { cwd: tmp.dir });
    expect(r.code).to.equal(2);
    expect(r.stdout).to.equal('');
    expect(r.stderr.trim().split('\n')).to.have.length(1);
    expect(r.stderr).to.include(standIn.files.config).and.include(PUBLISHED_CONFIG_SHA).and.include(standIn.artifacts.config_sha256);
    expect(r.stderr).to.include(standIn.files.answerPrompt).and.include(standIn.artifacts.answer_prompt_sha256);
    expect(r.stderr).to.not.match(/\n\s+at /); // no stack trace
  });

  it('a changed byte is refused naming that file: the prompt against the config’s pin, a manifest that stops being JSON', async () => {
    const copy = writeStandInProtocol(join(tmp.dir, 'changed'), { datasetSha256: setup.dataset.sha256 });
    const prompt = await readFile(copy.files.answerPrompt);
    prompt[prompt.length - 2] = prompt[prompt.length - 2]! ^ 0x01;
    await writeFile(copy.files.answerPrompt, prompt);
    const p = await runEvalogHere(['memory-eviction', 'validate-contracts', '--protocol-dir', copy.dir, '--allow-unpinned'], { cwd: tmp.dir });
    expect(p.code).to.equal(2);
    expect(p.stderr).to.include(copy.files.answerPrompt).and.include('qa.answer_prompt.sha256');
    const manifest = await readFile(copy.files.official, 'utf8');
    await writeFile(copy.files.official, manifest.replace('{', '['));
    const m = await runEvalogHere(['memory-eviction', 'validate', '--protocol-dir', copy.dir, '--allow-unpinned', '--dataset', setup.dataset.path], {
      cwd: tmp.dir,
    });
    expect(m.code).to.equal(2);
    expect(m.stderr).to.include(copy.files.official);
  });

  it('run-qa refuses before touching the dataset when the protocol’s endpoint variables are missing, naming them; other endpoints’ variables never stand in', async () => {
    const missingData = ['--protocol-dir', standIn.dir, '--allow-unpinned', '--dataset', join(tmp.dir, 'no-such-dataset.json')];
    const none = await runEvalogHere(['memory-eviction', 'run-qa', ...missingData, '--out', 'runs/none'], {
      cwd: tmp.dir,
      env: { ...OTHER_ENDPOINTS, DEERMEM_EVAL_ANSWER_BASE_URL: undefined, DEERMEM_EVAL_ANSWER_API_KEY: undefined },
    });
    expect(none.code).to.equal(2);
    expect(none.stderr).to.include('DEERMEM_EVAL_ANSWER_BASE_URL').and.include('DEERMEM_EVAL_ANSWER_API_KEY').and.not.include('no-such-dataset');
    expect(none.stderr).to.not.include('sk-openai-OTHER').and.not.include('sk-evalog-OTHER');
    const keyless = await runEvalogHere(['memory-eviction', 'run-qa', ...missingData, '--out', 'runs/none'], {
      cwd: tmp.dir,
      env: { ...OTHER_ENDPOINTS, DEERMEM_EVAL_ANSWER_BASE_URL: endpoint.url, DEERMEM_EVAL_ANSWER_API_KEY: '  ' },
    });
    expect(keyless.code).to.equal(2);
    expect(keyless.stderr).to.include('missing provider environment variables: DEERMEM_EVAL_ANSWER_API_KEY').and.not.include('DEERMEM_EVAL_ANSWER_BASE_URL,');
    expect(await exists(join(tmp.dir, 'runs/none'))).to.equal(false);
    expect(endpoint.requests).to.have.length(0);
    // The model is the protocol's: --model is refused with a one-line reason.
    const model = await runEvalogHere(['memory-eviction', 'run-qa', ...data, '--model', 'other', '--out', 'runs/none'], {
      cwd: tmp.dir,
      env: { DEERMEM_EVAL_ANSWER_BASE_URL: endpoint.url, DEERMEM_EVAL_ANSWER_API_KEY: KEY },
    });
    expect(model.code).to.equal(2);
    expect(model.stderr.trim().split('\n')).to.have.length(1);
    expect(model.stderr).to.include('--model').and.include('qa.model');
  });

  it('run-qa sends exactly the protocol’s body, fingerprinted as Python would; replies follow upstream’s contract; usage and qa_run.json', async () => {
    const env = { ...OTHER_ENDPOINTS, DEERMEM_EVAL_ANSWER_BASE_URL: endpoint.url, DEERMEM_EVAL_ANSWER_API_KEY: KEY };
    const r = await runEvalogHere(['memory-eviction', 'run-qa', ...data, '--out', 'runs/qa'], { cwd: tmp.dir, env });
    // Complete, with rows that failed on purpose (C8 below): exit 3, some jobs ended in errors.
    expect(r.code, r.stderr).to.equal(3);
    expect(r.stderr).to.match(/evalog: \d+ of \d+ jobs ended in errors \(last: /);
    expect(r.stderr).to.include('unpinned protocol');
    expect(r.stdout).to.include('[unpinned protocol]');
    const chat = endpoint.requests.filter((q) => q.path === '/v1/chat/completions');
    expect(chat.length).to.equal(endpoint.requests.length);

    // C6: the body is {model, temperature, max_tokens, stream, messages} from the config, nothing else (no seed).
    for (const q of chat) {
      expect(q.authorization).to.equal(`Bearer ${KEY}`);
      expect(Object.keys(q.body!).sort()).to.deep.equal(['max_tokens', 'messages', 'model', 'stream', 'temperature']);
      expect(q.body).to.deep.include({ model: 'deepseek-v4-flash', temperature: 0, max_tokens: 2048, stream: false });
      expect((q.body!.messages as { role: string }[]).map((m) => m.role)).to.deep.equal(['system', 'user']);
    }
    const rows = await readJsonl<Record<string, unknown>>(join(tmp.dir, 'runs/qa/rows.jsonl'));
    expect(rows).to.have.length(90);
    const row = (caseId: string, policy = 'confidence') => rows.find((x) => x.row_id === `${caseId}__${policy}`)!;
    // The rows' fingerprints are python3's json.dumps fingerprints of the bodies the server received.
    const sent = new Set(pythonFingerprints(chat.map((q) => q.raw)));
    for (const x of rows) expect(sent.has(x.request_fingerprint as string), String(x.row_id)).to.equal(true);

    // C8: a reply without string content, or a body that is no chat completion, fails the row after one attempt.
    for (const id of [NULL_CONTENT, NUMBER_CONTENT, NO_MESSAGE, NOT_JSON]) {
      for (const policy of ['confidence', 'hybrid-v1']) {
        expect(row(id, policy), `${id} ${policy}`).to.deep.include({ status: 'failed', prediction: null, attempts: 1 });
      }
      expect(chat.filter((q) => caseOf(q) === id).length, id).to.equal(2);
    }
    // Upstream's provider keeps an empty string as the prediction (graded `empty-prediction` later).
    expect(row(EMPTY_CONTENT)).to.deep.include({ status: 'answered', prediction: '', attempts: 1 });
    // 5xx and 429 are retried after the protocol's 2 s, a Retry-After of 30 s notwithstanding.
    for (const id of [SERVER_ERROR_ONCE, RATE_LIMITED_ONCE]) {
      expect(row(id), id).to.deep.include({ status: 'answered', prediction: 'INSUFFICIENT', attempts: 2 });
      const tries = chat.filter((q) => caseOf(q) === id && q.callKey!.includes('__confidence') === false);
      expect(tries.length, id).to.be.greaterThan(0);
    }
    const rate = chat.filter((q) => caseOf(q) === RATE_LIMITED_ONCE).sort((a, b) => a.atMs - b.atMs);
    const byJob = new Map<string, number[]>();
    for (const q of rate) {
      const job = q.callKey!.split('/').slice(0, -2).join('/');
      byJob.set(job, [...(byJob.get(job) ?? []), q.atMs]);
    }
    for (const [job, at] of byJob) {
      expect(at, job).to.have.length(2);
      expect(at[1]! - at[0]!, job).to.be.within(1900, 10_000);
    }
    // Usage keeps every top-level count the provider reported, cache hits and misses included ...
    expect(row('0db4c65d').usage).to.deep.equal({
      prompt_tokens: 900,
      completion_tokens: 3,
      total_tokens: 903,
      prompt_cache_hit_tokens: 640,
      prompt_cache_miss_tokens: 260,
    });
    // ... and the log keeps the whole usage object, nested details too.
    const log = await FileEventLog.open({ root: join(tmp.dir, 'runs') });
    let reported: unknown = null;
    for await (const e of log.read('qa')) if (e.type === 'ProviderCallSucceeded' && reported === null) reported = e.data.reportedUsage;
    await log.close();
    expect(reported).to.deep.equal(USAGE);

    // qa_run.json: where the protocol came from (its published fields: the next test).
    const marker = JSON.parse(await readFile(join(tmp.dir, 'runs/qa/qa_run.json'), 'utf8')) as Record<string, Record<string, unknown>> & {
      protocol: { files: Record<string, { path: string; sha256: string }> };
    };
    expect(marker.schema_version).to.equal(2);
    expect(marker.protocol_id).to.equal('evalog-deermem-offline-v1');
    expect(marker.artifacts).to.deep.equal({ ...standIn.artifacts, dataset_sha256: setup.dataset.sha256 });
    expect(marker.created_at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(marker.protocol_status).to.equal('unpinned protocol');
    expect(marker.protocol).to.deep.include({ layout: 'upstream', source: standIn.dir, pinned: false });
    expect(marker.protocol.files.answer_prompt).to.deep.equal({ path: 'prompts/answer-v1.txt', sha256: standIn.artifacts.answer_prompt_sha256 });
    const run = JSON.parse(await readFile(join(tmp.dir, 'runs/qa/run.json'), 'utf8'));
    expect(run.config.protocol).to.deep.include({ status: 'unpinned protocol', source: standIn.dir });
    const summary = JSON.parse(await readFile(join(tmp.dir, 'runs/qa/summary.json'), 'utf8'));
    expect(summary.protocol_status).to.equal('unpinned protocol');
    // No credential or endpoint value in any file of the run folder.
    for (const f of ['qa_run.json', 'run.json', 'rows.jsonl', 'summary.json', 'usage.json']) {
      const text = await readFile(join(tmp.dir, 'runs/qa', f), 'utf8');
      expect(text, f).to.not.include(KEY).and.not.include(new URL(endpoint.url).host);
    }
  });

  // Apart from the run above so that, without the published folder, only this comparison skips.
  PUBLISHED.it('run-qa’s qa_run.json has the published file’s fields, then where the protocol came from', async () => {
    const file = join(tmp.dir, 'runs/qa/qa_run.json');
    expect(await exists(file), `${file} (written by the run-qa test above)`).to.equal(true);
    const published = JSON.parse(PUBLISHED.read('qa_run.json')) as Record<string, Record<string, unknown>>;
    const marker = JSON.parse(await readFile(file, 'utf8')) as Record<string, Record<string, unknown>>;
    expect(Object.keys(marker).sort()).to.deep.equal([...Object.keys(published), 'protocol', 'protocol_status'].sort());
    for (const k of ['git', 'dataset', 'artifacts', 'qa']) expect(Object.keys(marker[k]!).sort(), k).to.deep.equal(Object.keys(published[k]!).sort());
    expect(marker.qa).to.deep.equal({ ...published.qa });
    expect(marker.dataset).to.deep.equal({ ...published.dataset, sha256: setup.dataset.sha256 });
  });

  it('run-qa --scripted answers with evalog’s scripted model without any endpoint variable; it, grade-qa and run-policy are labelled unpinned', async () => {
    const before = endpoint.requests.length;
    const r = await runEvalogHere(['memory-eviction', 'run-qa', ...data, '--scripted', '--out', 'runs/scripted'], {
      cwd: tmp.dir,
      env: { DEERMEM_EVAL_ANSWER_BASE_URL: undefined, DEERMEM_EVAL_ANSWER_API_KEY: undefined },
    });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.include('--scripted').and.include('unpinned protocol');
    expect(endpoint.requests.length).to.equal(before);
    const summary = JSON.parse(await readFile(join(tmp.dir, 'runs/scripted/summary.json'), 'utf8'));
    expect(summary).to.deep.include({ scripted: true, protocol_status: 'unpinned protocol' });
    expect(summary.confidence.answered).to.equal(45);
    // grade-qa and run-policy on the same folder say it too, in their files and on every line.
    const g = await runEvalogHere(['memory-eviction', 'grade-qa', 'runs/scripted', ...data], { cwd: tmp.dir });
    expect(g.code, g.stderr).to.equal(0);
    for (const line of g.stdout.trim().split('\n')) expect(line).to.include('(unpinned protocol)');
    for (const f of ['qa.summary.json', 'qa.stats.json']) {
      const doc = JSON.parse(await readFile(join(tmp.dir, 'runs/scripted', f), 'utf8'));
      expect(doc, f).to.deep.include({ protocol_id: 'evalog-deermem-offline-v1', protocol_status: 'unpinned protocol', scripted: true });
    }
    const p = await runEvalogHere(['memory-eviction', 'run-policy', ...data, '--out', 'runs/policy'], { cwd: tmp.dir });
    expect(p.code, p.stderr).to.equal(0);
    expect(p.stdout).to.include('(unpinned protocol)');
    const run = JSON.parse(await readFile(join(tmp.dir, 'runs/policy/run.json'), 'utf8'));
    expect(run).to.deep.include({ protocol_status: 'unpinned protocol', artifacts: standIn.artifacts });
    expect(run.protocol).to.deep.include({ layout: 'upstream', source: standIn.dir, pinned: false });
    expect(JSON.parse(await readFile(join(tmp.dir, 'runs/policy/summary.json'), 'utf8')).protocol_status).to.equal('unpinned protocol');
  });
});
