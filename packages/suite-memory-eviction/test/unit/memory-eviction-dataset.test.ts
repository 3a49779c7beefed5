import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  BANK_OUTSIDERS,
  INELIGIBLE,
  makeLongMemEvalDataset,
  makeRow,
  makeTestSetup,
  manifestIdsByType,
  PUBLISHED_BANK_IDS,
  type Row,
} from '../../../../test/support/longmemeval.js';
import { buildDistractorBank, caseOffset, drawDistractors, officialExclusionReason, selectOfficialIds } from '../../src/cases.js';
import { type DatasetRow, loadDataset, stringifyAnswer } from '../../src/dataset.js';
import { DatasetError, DatasetHashMismatchError } from '../../src/errors.js';
import { renderEvidence } from '../../src/evidence.js';
import { loadProtocol, type Protocol } from '../../src/protocol.js';
import { PyFloat } from '../../src/python-json.js';
import { cpLength } from '../../src/text.js';

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const row = (r: Row) => r as DatasetRow;

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

describe('memory-eviction dataset: evidence rendering (A3.3)', () => {
  it('renders the A10 vector: has_answer turns, else user turns', () => {
    const r = makeRow('q', 'knowledge-update', 'a', [
      [
        { role: 'user', content: 'ignore unmarked', has_answer: false },
        { role: 'assistant', content: 'marked answer', has_answer: true },
      ],
      [
        { role: 'user', content: 'fallback user' },
        { role: 'assistant', content: 'not selected' },
      ],
    ]);
    r.haystack_session_ids = ['s1', 's2'];
    r.haystack_dates = ['2026/01/01', '2026/01/02'];
    expect(renderEvidence(row(r))).to.equal('SESSION s1 AT 2026/01/01\nASSISTANT: marked answer\n\nSESSION s2 AT 2026/01/02\nUSER: fallback user');
  });

  it('skips sessions with nothing selected, ignores invalid turns, writes UNKNOWN for a missing role', () => {
    const r = makeRow('q', 'knowledge-update', 'a', [
      [{ role: 'assistant', content: 'only assistant' }],
      [{ content: 'no role', has_answer: true }, { role: 'user', content: 7, has_answer: true }, 'junk', null, { role: 'USER', content: 'upper user' }],
      [
        { role: 'User', content: 'mixed case user' },
        { role: null, content: 'null role' },
      ],
    ]);
    r.haystack_session_ids = ['s1', 's2', 's3'];
    r.haystack_dates = ['d1', 'd2', 'd3'];
    expect(renderEvidence(row(r))).to.equal('SESSION s2 AT d2\nUNKNOWN: no role\n\nSESSION s3 AT d3\nUSER: mixed case user');
  });

  it('renders nothing when every session is skipped', () => {
    const r = makeRow('q', 'knowledge-update', 'a', [[{ role: 'assistant', content: 'x' }]]);
    expect(renderEvidence(row(r))).to.equal('');
  });

  it('requires the three haystack lists, of equal length', () => {
    const r = makeRow('q1', 'knowledge-update', 'a', [[{ role: 'user', content: 'x' }]]);
    r.haystack_dates = [];
    expect(thrown(() => renderEvidence(row(r), 'f.json')))
      .to.be.instanceOf(DatasetError)
      .with.property('message')
      .that.matches(/f\.json.*"q1".*differ in length/);
    delete r.haystack_sessions;
    expect(thrown(() => renderEvidence(row(r), 'f.json')))
      .to.be.instanceOf(DatasetError)
      .with.property('message')
      .that.matches(/must be lists/);
  });

  it('counts code points: a 🙂 is one character', () => {
    const r = makeRow('q', 'knowledge-update', 'a', [[{ role: 'user', content: '🙂'.repeat(10) }]]);
    r.haystack_session_ids = ['s'];
    r.haystack_dates = ['d'];
    const ev = renderEvidence(row(r));
    expect(cpLength(ev)).to.equal('SESSION s AT d\nUSER: '.length + 10);
    expect(ev.length).to.equal('SESSION s AT d\nUSER: '.length + 20);
  });
});

describe('memory-eviction dataset: answers (A3.2)', () => {
  it('keeps strings and writes everything else as Python json.dumps(sort_keys=True, ensure_ascii=False)', () => {
    expect(stringifyAnswer('  Paris ')).to.equal('  Paris ');
    expect(stringifyAnswer(25)).to.equal('25');
    expect(stringifyAnswer(new PyFloat(3))).to.equal('3.0');
    expect(stringifyAnswer(2.5)).to.equal('2.5');
    expect(stringifyAnswer(true)).to.equal('true');
    expect(stringifyAnswer(null)).to.equal('null');
    expect(stringifyAnswer({ b: 1, a: 'café' })).to.equal('{"a": "café", "b": 1}');
    expect(stringifyAnswer(['x', 2, { z: [] }])).to.equal('["x", 2, {"z": []}]');
  });
});

describe('memory-eviction dataset: offsets (A3.6)', () => {
  it('matches the A10 vectors', () => {
    expect(sha('offset-ns:case-a').slice(0, 8)).to.equal('5001c89f');
    expect(sha('offset-ns:case-c').slice(0, 8)).to.equal('f5290d18');
    const bank = ['b0', 'b1', 'b2', 'b3', 'b4'];
    expect(caseOffset('offset-ns', 'case-a', 5)).to.equal(0);
    expect(drawDistractors(bank, 'offset-ns', 'case-a', 3)).to.deep.equal(['b0', 'b1', 'b2']);
    expect(caseOffset('offset-ns', 'case-c', 5)).to.equal(3);
    expect(drawDistractors(bank, 'offset-ns', 'case-c', 3)).to.deep.equal(['b3', 'b4', 'b0']);
    expect(caseOffset('alt-ns', 'case-a', 5)).to.equal(1);
  });

  it('gives the A10 offsets of real cases (mod 40)', () => {
    const offsets = Object.fromEntries(
      ['01493427', '1cea1afa', '06db6396', 'correction_peanut_allergy'].map((id) => [id, caseOffset('deermem-medium-v1', id, 40)]),
    );
    expect(offsets).to.deep.equal({ '01493427': 4, '1cea1afa': 21, '06db6396': 2, correction_peanut_allergy: 5 });
  });
});

describe('memory-eviction dataset: loadDataset (A3.1)', () => {
  let setup: ReturnType<typeof makeTestSetup>;
  before(() => (setup = makeTestSetup()));
  after(() => setup.cleanup());
  const write = (name: string, text: string) => {
    const path = join(setup.dataset.dir, name);
    writeFileSync(path, text);
    return { path, sha256: sha(text) };
  };

  it('loads rows when the hash matches', () => {
    const ds = loadDataset(setup.dataset.path, setup.dataset.sha256);
    expect(ds.rows).to.have.length(setup.dataset.rows.length);
    expect(ds.sha256).to.equal(setup.dataset.sha256);
    expect(ds.byId.get('01493427')?.answer).to.equal(25);
    expect(ds.byId.get('06db6396')?.answer).to.be.instanceOf(PyFloat);
  });

  it('checks the hash before parsing: a wrong hash fails naming the file, expected and actual', () => {
    const junk = write('junk.json', 'this is not JSON');
    const expected = 'ab'.repeat(32);
    const err = thrown(() => loadDataset(junk.path, expected));
    expect(err).to.be.instanceOf(DatasetHashMismatchError);
    expect(err.message).to.include('SHA-256 mismatch').and.include(junk.path).and.include(expected).and.include(junk.sha256);
    expect(err).to.deep.include({ expected, actual: junk.sha256, file: junk.path });
  });

  it('rejects a changed byte of the pinned file', () => {
    const other = write('other.json', '[]');
    expect(thrown(() => loadDataset(other.path, setup.dataset.sha256))).to.be.instanceOf(DatasetHashMismatchError);
  });

  it('rejects a missing file, bad JSON, a non-list root, non-object rows, bad or duplicate ids', () => {
    expect(thrown(() => loadDataset(join(setup.dataset.dir, 'nope.json'), 'ab'.repeat(32))).message).to.match(/cannot read/);
    const cases: [string, RegExp][] = [
      ['[1,', /not valid JSON/],
      ['{"question_id": "a"}', /root must be a list/],
      ['[{"question_id": "a"}, 3]', /row 1 is not an object/],
      ['[{"question_id": ""}]', /row 0: question_id must be a non-empty string/],
      ['[{"question_id": 7}]', /row 0: question_id must be a non-empty string/],
      ['[{"other": 1}]', /row 0: question_id/],
      ['[{"question_id": "a"}, {"question_id": "a"}]', /"a".*duplicate question_id/],
    ];
    cases.forEach(([text, message], i) => {
      const f = write(`bad${i}.json`, text);
      const err = thrown(() => loadDataset(f.path, f.sha256));
      expect(err, text).to.be.instanceOf(DatasetError);
      expect(err.message, text).to.include(f.path).and.match(message);
    });
  });
});

describe('memory-eviction dataset: official eligibility (A3.4)', () => {
  const protocol = loadProtocol();
  const sel = protocol.official.selection;
  let setup: ReturnType<typeof makeTestSetup>;
  let p: Protocol;
  before(() => {
    setup = makeTestSetup();
    p = loadProtocol(undefined, { configPath: setup.config.path });
  });
  after(() => setup.cleanup());
  const base = () => makeRow('zz000001', 'knowledge-update', 'Paris', [[{ role: 'user', content: 'I live in Paris.', has_answer: true }]]);

  it('accepts a row that passes every rule', () => {
    expect(officialExclusionReason(row(base()), sel)).to.equal(null);
  });

  const rules: [string, (r: Row) => void, string][] = [
    ['type not eligible', (r) => (r.question_type = 'multi-session'), 'question_type'],
    ['type missing', (r) => delete r.question_type, 'question_type'],
    ['excluded pilot id', (r) => (r.question_id = 'gpt4_85da3956'), 'excluded_pilot_id'],
    ['abstention suffix', (r) => (r.question_id = 'zz000001_abs'), 'abstention'],
    ['answer of 101 code points', (r) => (r.answer = 'x'.repeat(101)), 'answer_length'],
    ['answer of whitespace only (Python strip)', (r) => (r.answer = ' \u3000\x1c\n'), 'answer_length'],
    ['answer containing "not enough" (any case)', (r) => (r.answer = 'Not Enough data'), 'answer_excluded_substring'],
    ['answer containing "only mentioned"', (r) => (r.answer = 'It was ONLY MENTIONED once'), 'answer_excluded_substring'],
    ['evidence of 2001 code points', (r) => (r.haystack_sessions = [[{ role: 'user', content: 'y'.repeat(2001) }]]), 'evidence_length'],
    ['empty evidence', (r) => (r.haystack_sessions = [[{ role: 'assistant', content: 'x' }]]), 'evidence_length'],
  ];
  for (const [title, edit, reason] of rules)
    it(`excludes: ${title}`, () => {
      const r = base();
      edit(r);
      expect(officialExclusionReason(row(r), sel)).to.equal(reason);
    });

  it('counts answer and evidence lengths in code points, after strip for the answer', () => {
    const r = base();
    r.answer = `  ${'🙂'.repeat(100)}  `; // 200 UTF-16 units, 100 code points
    expect(officialExclusionReason(row(r), sel)).to.equal(null);
    const header = 'SESSION answer_zz000001_1 AT 2023/05/10 (Wed) 10:00\nUSER: ';
    r.haystack_sessions = [[{ role: 'user', content: '🙂'.repeat(2000 - header.length) }]];
    expect(cpLength(renderEvidence(row(r)))).to.equal(2000);
    expect(officialExclusionReason(row(r), sel)).to.equal(null);
    r.haystack_sessions = [[{ role: 'user', content: '🙂'.repeat(2001 - header.length) }]];
    expect(officialExclusionReason(row(r), sel)).to.equal('evidence_length');
  });

  it('excludes every ineligible row of the synthetic dataset by its rule', () => {
    const byId = new Map(setup.dataset.rows.map((r) => [r.question_id, row(r)]));
    const expected: Record<string, string> = {
      [INELIGIBLE.wrongType]: 'question_type',
      [INELIGIBLE.abstention]: 'abstention',
      [INELIGIBLE.excludedPilotKu]: 'excluded_pilot_id',
      [INELIGIBLE.excludedPilotTr]: 'excluded_pilot_id',
      [INELIGIBLE.answerTooLong]: 'answer_length',
      [INELIGIBLE.answerBlank]: 'answer_length',
      [INELIGIBLE.answerNotEnough]: 'answer_excluded_substring',
      [INELIGIBLE.answerOnlyMentioned]: 'answer_excluded_substring',
      [INELIGIBLE.evidenceTooLong]: 'evidence_length',
      [INELIGIBLE.evidenceEmpty]: 'evidence_length',
    };
    for (const [id, reason] of Object.entries(expected)) expect(officialExclusionReason(byId.get(id)!, sel), id).to.equal(reason);
  });

  it('recomputes exactly the manifest ids, scenario by scenario (ineligible rows sort among them)', () => {
    const ds = loadDataset(setup.dataset.path, setup.dataset.sha256);
    expect(selectOfficialIds(p.official, ds)).to.deep.equal(p.official.scenarios);
    // The long official evidence counts as ≤ 2000 only in code points.
    const astral = renderEvidence(ds.byId.get(manifestIdsByType()['knowledge-update'][4]!)!);
    expect(astral.length).to.be.greaterThan(2000);
    expect(cpLength(astral)).to.be.at.most(2000);
  });

  it('fails when an extra eligible row sorts into the selection', () => {
    const ds = makeLongMemEvalDataset({
      transform: (rows) => [...rows, makeRow('00000009', 'knowledge-update', 'Paris', [[{ role: 'user', content: 'x', has_answer: true }]])],
    });
    try {
      const err = thrown(() => selectOfficialIds(p.official, loadDataset(ds.path, ds.sha256)));
      expect(err).to.be.instanceOf(DatasetError);
      expect(err.message)
        .to.match(/official selection for confirmation_help does not match the manifest/)
        .and.include('00000009');
    } finally {
      rmSync(ds.dir, { recursive: true, force: true });
    }
  });

  it('fails with "not enough eligible" when a type has fewer than 20', () => {
    const gone = manifestIdsByType()['temporal-reasoning'][7]!;
    const ds = makeLongMemEvalDataset({ transform: (rows) => rows.filter((r) => r.question_id !== gone) });
    try {
      expect(thrown(() => selectOfficialIds(p.official, loadDataset(ds.path, ds.sha256))).message).to.match(
        /not enough eligible temporal-reasoning rows: 19 < 20/,
      );
    } finally {
      rmSync(ds.dir, { recursive: true, force: true });
    }
  });
});

describe('memory-eviction dataset: distractor bank (A3.5)', () => {
  let setup: ReturnType<typeof makeTestSetup>;
  let p: Protocol;
  before(() => {
    setup = makeTestSetup();
    p = loadProtocol(undefined, { configPath: setup.config.path });
  });
  after(() => setup.cleanup());

  it('takes the first 40 bank-type rows with 40 ≤ evidence ≤ 700 code points, sorted by id', () => {
    const ds = loadDataset(setup.dataset.path, setup.dataset.sha256);
    const bank = buildDistractorBank(p.config.pool, ds);
    expect(bank.map((b) => b.question_id)).to.deep.equal([...PUBLISHED_BANK_IDS]);
    for (const id of [BANK_OUTSIDERS.tooShort, BANK_OUTSIDERS.tooLong, BANK_OUTSIDERS.noTurns, ...BANK_OUTSIDERS.beyondTake])
      expect(bank.map((b) => b.question_id)).not.to.include(id);
    // The first bank row is over 700 UTF-16 units but within 700 code points.
    expect(bank[0]!.evidence.length).to.be.greaterThan(700);
    expect(cpLength(bank[0]!.evidence)).to.be.at.most(700);
    expect(bank.every((b) => b.question_type === 'single-session-user' || b.question_type === 'single-session-preference')).to.equal(true);
  });

  it('fails when fewer than 40 rows qualify', () => {
    const ds = makeLongMemEvalDataset({ bankIds: PUBLISHED_BANK_IDS.slice(0, 37), ineligible: false });
    try {
      const err = thrown(() => buildDistractorBank(p.config.pool, loadDataset(ds.path, ds.sha256)));
      expect(err).to.be.instanceOf(DatasetError);
      expect(err.message).to.match(/needs exactly 40 rows, only 37 qualify/);
    } finally {
      rmSync(ds.dir, { recursive: true, force: true });
    }
  });
});
