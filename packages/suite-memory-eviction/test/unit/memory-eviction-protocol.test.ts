import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { MANIFEST_DIR_PATH, writeTestConfig } from '../../../../test/support/longmemeval.js';
import { DEERMEM_PR4789, publishedFolder } from '../../../../test/support/published.js';
import { ProtocolValidationError } from '../../src/errors.js';
import { loadProtocol, officialCaseIds, PROTOCOL_DIR, validateConfig, validateOfficialManifest, validateSyntheticManifest } from '../../src/protocol.js';

// The published fixtures beside the project root (test/support/published.ts: skipped when absent, failed when required).
const PUBLISHED = publishedFolder(DEERMEM_PR4789);
const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
/** A part of a parsed manifest: any key can be read, set or deleted. */
type Obj = Record<string, unknown>;
/** The three manifests as these tests edit them (invalid on purpose): the parts they reach into typed, every other key unknown. */
type Manifests = {
  'config.v1.json': Obj & {
    dataset: Obj;
    qa: Obj & { answer_prompt: Obj };
    pool: Obj;
    policies: Obj & { hybrid_v1: Obj & { weights: Obj }; confidence: Obj };
    statistics: Obj;
  };
  'official.v1.json': Obj & {
    selection: Obj;
    scenarios: Obj & { access_help: unknown[]; noisy_signal_control: unknown[] };
    scenario_order: unknown[];
    loss_ranks: unknown[];
  };
  'synthetic.v1.json': Obj & { cases: Obj[] };
};
type ManifestName = keyof Manifests;
const readJson = <N extends ManifestName>(name: N) => JSON.parse(readFileSync(join(MANIFEST_DIR_PATH, name), 'utf8')) as Manifests[N];

/** Expects `fn` to throw a ProtocolValidationError for `file` whose first issue is at `field`. */
function expectInvalid(fn: () => unknown, file: string, field: string, message?: RegExp): ProtocolValidationError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught, 'expected a ProtocolValidationError').to.be.instanceOf(ProtocolValidationError);
  const err = caught as ProtocolValidationError;
  expect(err.name).to.equal('ProtocolValidationError');
  expect(err.file).to.equal(file);
  expect(
    err.issues.map((i) => i.path),
    err.message,
  ).to.include(field);
  expect(err.message).to.include(file).and.to.include(field);
  if (message) expect(err.message).to.match(message);
  return err;
}

describe('memory-eviction protocol: loadProtocol', () => {
  const protocol = loadProtocol();

  it('loads the versioned config, manifests and prompt: 40 official and 5 synthetic cases', () => {
    // evalog's own offline variant: its own id, never the published protocol's.
    expect(protocol.config.protocol_id).to.equal('evalog-deermem-offline-v1');
    expect(protocol.source).to.deep.include({ layout: 'bundled', pinned: false });
    expect(protocol.official.protocol_id).to.equal(protocol.config.protocol_id);
    expect(protocol.synthetic.protocol_id).to.equal(protocol.config.protocol_id);
    expect(officialCaseIds(protocol)).to.have.length(40);
    expect(new Set(officialCaseIds(protocol)).size).to.equal(40);
    expect(protocol.synthetic.cases).to.have.length(5);
    expect(protocol.evaluationTime.toISOString()).to.equal('2026-08-13T00:00:00.000Z');
  });

  it('holds the A1 numbers', () => {
    const { pool, policies, qa, statistics, dataset } = protocol.config;
    expect(dataset).to.deep.equal({
      repository: 'xiaowu0162/longmemeval-cleaned',
      revision: '98d7416c24c778c2fee6e6f3006e7a073259d48f',
      filename: 'longmemeval_oracle.json',
      sha256: '821a2034d219ab45846873dd14c14f12cfe7776e73527a483f9dac095d38620c',
    });
    expect(pool).to.deep.include({
      size: 10,
      capacities: [5, 7, 9],
      qa_capacity: 7,
      distractors: 9,
      distractor_bank_size: 40,
      offset_namespace: 'deermem-medium-v1',
    });
    expect(policies.hybrid_v1.weights).to.deep.equal({ confidence: 0.65, confirmation: 0.25, access: 0.1 });
    expect(qa).to.deep.include({
      model: 'deepseek-v4-flash',
      temperature: 0,
      max_tokens: 2048,
      stream: false,
      max_attempts: 3,
      workers: 3,
      grader_version: 'deterministic-overlap-v1',
    });
    expect(statistics).to.deep.equal({ bootstrap_seed: 4789, bootstrap_iterations: 10000, alpha: 0.05 });
  });

  it('records the sha256 of each file’s bytes; the config pins our prompt’s hash', () => {
    const bytes = (name: string) => readFileSync(join(MANIFEST_DIR_PATH, name));
    expect(protocol.artifacts).to.deep.equal({
      config_sha256: sha(bytes('config.v1.json')),
      official_manifest_sha256: sha(bytes('official.v1.json')),
      synthetic_manifest_sha256: sha(bytes('synthetic.v1.json')),
      answer_prompt_sha256: sha(bytes('prompts/answer-v1.txt')),
    });
    expect(protocol.config.qa.answer_prompt.sha256).to.equal(protocol.artifacts.answer_prompt_sha256);
    // Our own prompt, so not the published one.
    expect(protocol.artifacts.answer_prompt_sha256).not.to.equal('2bd4f166219946ccff7ac86f52a053c6dbf8be6d27e178c398d6bf70cf8a7423');
    expect(protocol.answerPrompt).to.equal(bytes('prompts/answer-v1.txt').toString('utf8'));
  });

  it('returns frozen objects', () => {
    expect(Object.isFrozen(protocol)).to.equal(true);
    expect(Object.isFrozen(protocol.config.pool.capacities)).to.equal(true);
    expect(Object.isFrozen(protocol.official.scenarios.access_help)).to.equal(true);
    expect(() => (protocol.config.pool.capacities as number[]).push(8)).to.throw(TypeError);
  });

  it('has a prompt with the system/user split, the placeholders and the INSUFFICIENT instruction', () => {
    const p = protocol.answerPrompt;
    expect(p.startsWith('SYSTEM:\n')).to.equal(true);
    expect(p).to.include('\n\nUSER:\n');
    for (const ph of ['{{CURRENT_DATE_SECTION}}', '{{STORED_MEMORY}}', '{{QUESTION}}']) expect(p).to.include(ph);
    expect(p).to.include('INSUFFICIENT');
    expect(p.endsWith('\n')).to.equal(true);
  });

  it('lists scenarios KU×5 then TR×5, each block sorted, in A3.4 order', () => {
    const { scenarios, scenario_order } = protocol.official;
    expect(scenario_order).to.deep.equal(['confirmation_help', 'access_help', 'confidence_control', 'noisy_signal_control']);
    const ku = scenario_order.flatMap((s) => scenarios[s].slice(0, 5));
    const tr = scenario_order.flatMap((s) => scenarios[s].slice(5));
    expect(ku).to.deep.equal([...ku].sort());
    expect(tr).to.deep.equal([...tr].sort());
    expect(protocol.official.loss_ranks).to.deep.equal([6, 6, 6, 8, 8, 8, 10, 10, 10, 10]);
  });

  it('holds the five synthetic guards with the spec’s ids and loss ranks, all answered NO', () => {
    expect(protocol.synthetic.cases.map((c) => [c.case_id, c.loss_rank])).to.deep.equal([
      ['correction_peanut_allergy', 6],
      ['correction_language', 8],
      ['correction_timezone', 8],
      ['correction_review_resolution', 10],
      ['correction_shipping_address', 10],
    ]);
    expect(protocol.synthetic.cases.every((c) => c.answer === 'NO')).to.equal(true);
  });

  PUBLISHED.it('matches the published rows’ case ids, scenarios and question types', () => {
    const rows = PUBLISHED.read('qa.rows.jsonl')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>);
    const published = new Map(rows.map((r) => [r.case_id!, { scenario: r.scenario, type: r.question_type }]));
    expect(published.size).to.equal(45);
    for (const s of protocol.official.scenario_order)
      for (const [i, id] of protocol.official.scenarios[s].entries())
        expect(published.get(id), id).to.deep.equal({ scenario: s, type: i < 5 ? 'knowledge-update' : 'temporal-reasoning' });
    for (const c of protocol.synthetic.cases) expect(published.get(c.case_id)).to.deep.equal({ scenario: 'correction_reserve', type: 'synthetic-correction' });
  });

  it('takes a test config by path and hashes that file', () => {
    const written = writeTestConfig('ab'.repeat(32));
    const p = loadProtocol(undefined, { configPath: written.path });
    expect(p.config.dataset.sha256).to.equal('ab'.repeat(32));
    expect(p.artifacts.config_sha256).to.equal(written.sha256);
    expect(p.files.config).to.equal(written.path);
    expect(p.artifacts.official_manifest_sha256).to.equal(protocol.artifacts.official_manifest_sha256);
    rmSync(dirname(written.path), { recursive: true, force: true });
  });

  it('converts an evaluation_time with an offset to UTC', () => {
    const written = writeTestConfig('ab'.repeat(32), { mutate: (c) => (c.evaluation_time = '2026-08-13T02:00:00+02:00') });
    expect(loadProtocol(undefined, { configPath: written.path }).evaluationTime.toISOString()).to.equal('2026-08-13T00:00:00.000Z');
    rmSync(dirname(written.path), { recursive: true, force: true });
  });

  it('accepts the directory as a URL with or without a trailing slash', () => {
    const noSlash = new URL(PROTOCOL_DIR.href.replace(/\/$/, ''));
    expect(loadProtocol(noSlash).artifacts).to.deep.equal(protocol.artifacts);
  });
});

describe('memory-eviction protocol: validation failures name the file and the field', () => {
  const F = 'some/file.json';
  type Case = [
    title: string,
    validate: (v: unknown, f: string) => unknown,
    source: ManifestName,
    edit: (d: Manifests[ManifestName]) => void,
    field: string,
    message?: RegExp,
  ];
  type Edit<N extends ManifestName> = (d: Manifests[N]) => void;
  // Each helper pairs its edit with the file the edit is given, so the edit sees that file's shape.
  const cfg = (t: string, edit: Edit<'config.v1.json'>, field: string, m?: RegExp): Case => [t, validateConfig, 'config.v1.json', edit as Case[3], field, m];
  const off = (t: string, edit: Edit<'official.v1.json'>, field: string, m?: RegExp): Case => [
    t,
    validateOfficialManifest,
    'official.v1.json',
    edit as Case[3],
    field,
    m,
  ];
  const syn = (t: string, edit: Edit<'synthetic.v1.json'>, field: string, m?: RegExp): Case => [
    t,
    validateSyntheticManifest,
    'synthetic.v1.json',
    edit as Case[3],
    field,
    m,
  ];

  const cases: Case[] = [
    cfg('unknown top-level key', (d) => (d.extra = 1), 'extra', /unknown key/),
    cfg('unknown nested key', (d) => (d.qa.answer_prompt.note = 'x'), 'qa.answer_prompt.note', /unknown key/),
    cfg('schema_version 2', (d) => (d.schema_version = 2), 'schema_version'),
    cfg('wrong policy version', (d) => (d.required_policy_version = 'hybrid-v2'), 'required_policy_version'),
    cfg('evaluation_time without timezone', (d) => (d.evaluation_time = '2026-08-13T00:00:00'), 'evaluation_time', /timezone/),
    cfg('revision of 39 hex digits', (d) => (d.dataset.revision = 'a'.repeat(39)), 'dataset.revision', /40/),
    cfg('dataset sha256 not hex', (d) => (d.dataset.sha256 = 'z'.repeat(64)), 'dataset.sha256', /64/),
    cfg('prompt sha256 too short', (d) => (d.qa.answer_prompt.sha256 = 'ab'), 'qa.answer_prompt.sha256', /64/),
    cfg('distractors ≠ size − 1', (d) => (d.pool.distractors = 8), 'pool.distractors', /size - 1/),
    cfg('bank smaller than distractors', (d) => (d.pool.distractor_bank_size = 5), 'pool.distractor_bank_size'),
    cfg('duplicate capacity', (d) => (d.pool.capacities = [5, 7, 7]), 'pool.capacities[2]', /duplicate/),
    cfg('capacity = size', (d) => (d.pool.capacities = [5, 7, 10]), 'pool.capacities[2]', /\[1, 9\]/),
    cfg('capacity 0', (d) => (d.pool.capacities = [0, 7]), 'pool.capacities[0]'),
    cfg('empty capacities', (d) => (d.pool.capacities = []), 'pool.capacities'),
    cfg('qa_capacity not a capacity', (d) => (d.pool.qa_capacity = 6), 'pool.qa_capacity'),
    cfg('duplicate distractor type', (d) => (d.pool.distractor_types = ['single-session-user', 'single-session-user']), 'pool.distractor_types[1]'),
    cfg('no distractor types', (d) => (d.pool.distractor_types = []), 'pool.distractor_types'),
    cfg('min evidence > max', (d) => (d.pool.distractor_min_evidence_chars = 800), 'pool.distractor_min_evidence_chars'),
    cfg('fact_order other than fact-id', (d) => (d.pool.fact_order = 'score'), 'pool.fact_order'),
    cfg('weights not summing to 1', (d) => (d.policies.hybrid_v1.weights.access = 0.11), 'policies.hybrid_v1.weights', /sum to 1/),
    cfg('weights with a fourth key', (d) => (d.policies.hybrid_v1.weights.recency = 0), 'policies.hybrid_v1.weights.recency', /unknown key/),
    cfg('weights missing a key', (d) => delete d.policies.hybrid_v1.weights.access, 'policies.hybrid_v1.weights.access'),
    cfg('weight above 1', (d) => Object.assign(d.policies.hybrid_v1.weights, { confidence: 1.1, confirmation: -0.2 }), 'policies.hybrid_v1.weights.confidence'),
    cfg('wrong confidence policy', (d) => (d.policies.confidence.policy = 'hybrid-v1'), 'policies.confidence.policy'),
    cfg('wrong grader version', (d) => (d.qa.grader_version = 'llm-judge'), 'qa.grader_version'),
    cfg('prompt path escaping the directory', (d) => (d.qa.answer_prompt.path = '../x.txt'), 'qa.answer_prompt.path'),
    cfg('alpha out of range', (d) => (d.statistics.alpha = 1), 'statistics.alpha'),
    off('question key in the manifest', (d) => (d.selection.question = 'x'), 'selection.question', /dataset text/),
    off('haystack key at the top', (d) => (d.haystack_sessions = []), 'haystack_sessions', /dataset text/),
    off('answer key deep inside', (d) => (d.scenarios = { ...d.scenarios, extra: [{ answer: 'x' }] }), 'scenarios.extra[0].answer', /dataset text/),
    off('unknown key', (d) => (d.notes = 'x'), 'notes', /unknown key/),
    off('scenario with 9 ids', (d) => d.scenarios.access_help.pop(), 'scenarios.access_help'),
    off('duplicate id in a scenario', (d) => (d.scenarios.access_help[3] = d.scenarios.access_help[2]), 'scenarios.access_help[3]', /duplicate/),
    off('id in two scenarios', (d) => (d.scenarios.noisy_signal_control[0] = d.scenarios.access_help[0]), 'scenarios.noisy_signal_control[0]', /also listed/),
    off('missing scenario', (d) => delete d.scenarios.confidence_control, 'scenarios.confidence_control'),
    off('unknown scenario', (d) => (d.scenario_order[3] = 'recency_help'), 'scenario_order[3]'),
    off('repeated scenario in order', (d) => (d.scenario_order[3] = 'access_help'), 'scenario_order', /unique/),
    off('nine loss ranks', (d) => d.loss_ranks.pop(), 'loss_ranks'),
    off('loss rank 11', (d) => (d.loss_ranks[9] = 11), 'loss_ranks[9]'),
    off('take ≠ scenarios × cases per type', (d) => (d.selection.take_per_question_type = 21), 'selection.take_per_question_type'),
    off('unknown selection key', (d) => (d.selection.shuffle = true), 'selection.shuffle', /unknown key/),
    off('excluded pilot id listed', (d) => (d.scenarios.access_help[0] = '0f05491a'), 'scenarios.access_help[0]', /pilot/),
    off('abstention id listed', (d) => (d.scenarios.access_help[0] = '0977f2af_abs'), 'scenarios.access_help[0]', /abstention/),
    off('protocol_id empty', (d) => (d.protocol_id = ''), 'protocol_id'),
    syn('answer YES', (d) => (d.cases[0]!.answer = 'YES'), 'cases[0].answer'),
    syn('four cases', (d) => d.cases.pop(), 'cases'),
    syn('six cases', (d) => d.cases.push({ ...d.cases[0], case_id: 'correction_more' }), 'cases'),
    syn('duplicate case id', (d) => (d.cases[1]!.case_id = d.cases[0]!.case_id), 'cases[1].case_id', /duplicate/),
    syn('unknown case key', (d) => (d.cases[2]!.note = 'x'), 'cases[2].note', /unknown key/),
    syn('wrong scenario', (d) => (d.scenario = 'access_help'), 'scenario'),
    syn('empty support fact', (d) => (d.cases[3]!.support_fact = ''), 'cases[3].support_fact'),
  ];

  for (const [title, validate, source, edit, field, message] of cases)
    it(`${source}: ${title} → ${field}`, () => {
      const doc = readJson(source);
      edit(doc);
      expectInvalid(() => validate(doc, F), F, field, message);
    });

  it('accepts the unedited files', () => {
    expect(() => validateConfig(readJson('config.v1.json'), F)).not.to.throw();
    expect(() => validateOfficialManifest(readJson('official.v1.json'), F)).not.to.throw();
    expect(() => validateSyntheticManifest(readJson('synthetic.v1.json'), F)).not.to.throw();
  });
});

describe('memory-eviction protocol: cross-file checks (loadProtocol)', () => {
  let dir: string;
  let url: URL;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'evalog-me-protocol-'));
    cpSync(MANIFEST_DIR_PATH, dir, { recursive: true });
    url = pathToFileURL(`${dir}/`);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const edit = <N extends ManifestName>(name: N, fn: (d: Manifests[N]) => void) => {
    const d = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Manifests[N];
    fn(d);
    writeFileSync(join(dir, name), JSON.stringify(d, null, 2));
  };

  it('loads the copy unchanged', () => {
    expect(loadProtocol(url).artifacts).to.deep.equal(loadProtocol().artifacts);
  });

  it('rejects an official manifest with another protocol id', () => {
    edit('official.v1.json', (d) => (d.protocol_id = 'other'));
    expectInvalid(() => loadProtocol(url), join(dir, 'official.v1.json'), 'protocol_id', /differs/);
  });

  it('rejects a synthetic manifest with another protocol id', () => {
    edit('synthetic.v1.json', (d) => (d.protocol_id = 'other'));
    expectInvalid(() => loadProtocol(url), join(dir, 'synthetic.v1.json'), 'protocol_id', /differs/);
  });

  it('rejects a prompt whose sha256 is not the pinned one, naming the config field and both hashes', () => {
    writeFileSync(join(dir, 'prompts/answer-v1.txt'), 'SYSTEM:\nchanged\n\nUSER:\n{{CURRENT_DATE_SECTION}}{{STORED_MEMORY}}\n{{QUESTION}}\n');
    const err = expectInvalid(() => loadProtocol(url), join(dir, 'config.v1.json'), 'qa.answer_prompt.sha256');
    expect(err.message).to.include(loadProtocol().artifacts.answer_prompt_sha256);
  });

  it('rejects a malformed prompt even when its hash is pinned', () => {
    const text = 'no system marker {{CURRENT_DATE_SECTION}}{{STORED_MEMORY}}{{QUESTION}}\n';
    writeFileSync(join(dir, 'prompts/answer-v1.txt'), text);
    edit('config.v1.json', (d) => (d.qa.answer_prompt.sha256 = sha(text)));
    expectInvalid(() => loadProtocol(url), join(dir, 'prompts/answer-v1.txt'), '(text)', /SYSTEM/);
  });

  it('rejects a missing prompt file', () => {
    rmSync(join(dir, 'prompts/answer-v1.txt'));
    expectInvalid(() => loadProtocol(url), join(dir, 'prompts/answer-v1.txt'), '(file)', /cannot be read/);
  });

  it('rejects loss ranks above the pool size', () => {
    edit('config.v1.json', (d) => Object.assign(d.pool, { size: 8, distractors: 7, capacities: [5, 7], qa_capacity: 7 }));
    expectInvalid(() => loadProtocol(url), join(dir, 'official.v1.json'), 'loss_ranks[6]', /distractors \+ 1/);
  });

  it('rejects a file that is not JSON', () => {
    writeFileSync(join(dir, 'synthetic.v1.json'), '{"schema_version": 1,');
    expectInvalid(() => loadProtocol(url), join(dir, 'synthetic.v1.json'), '(root)', /not valid JSON/);
  });
});
