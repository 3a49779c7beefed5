import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CaseLineError,
  DataChangedError,
  DatasetSuiteError,
  datasetCases,
  datasetConfig,
  missingVars,
  readCaseFile,
  readPinnedCaseFile,
  renderTemplate,
  templateVars,
} from '../../src/suites/dataset/index.js';
import { tempDir } from '../support/cli.js';

describe('dataset case files and templates', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let n = 0;
  before(async () => (tmp = await tempDir()));
  after(() => tmp.cleanup());
  const file = (text: string) => {
    const p = join(tmp.dir, `cases-${++n}.jsonl`);
    writeFileSync(p, text);
    return p;
  };
  const lineError = (text: string): CaseLineError => {
    const p = file(text);
    try {
      readCaseFile(p);
    } catch (err) {
      expect(err).to.be.instanceOf(CaseLineError);
      expect((err as CaseLineError).file).to.equal(p);
      expect((err as Error).message.startsWith(`${p} line `)).to.equal(true);
      return err as CaseLineError;
    }
    throw new Error('no error');
  };

  describe('reading', () => {
    it('reads cases in file order with their line numbers, vars and own graders (blank lines and CRLF allowed)', () => {
      const p = file(
        '{"id":"a","input":"x","expected":"y","topic":"t"}\r\n\n{"id":7,"messages":[{"role":"user","content":"hi"}],"expected":[1],"grader":"json-field"}\n',
      );
      const f = readCaseFile(p);
      expect(f.sha256).to.match(/^[0-9a-f]{64}$/);
      expect(f.cases.map((c) => [c.id, c.line, c.grader])).to.deep.equal([
        ['a', 1, null],
        ['7', 3, 'json-field'],
      ]);
      expect(f.cases[0]!.vars).to.deep.equal({ topic: 't' });
      expect(f.cases[1]!.messages).to.deep.equal([{ role: 'user', content: 'hi' }]);
    });

    const bad: [string, string, number, RegExp][] = [
      ['invalid JSON', '{"id":"a","input":"x","expected":"y"}\n{"id":"b",', 2, /not valid JSON/],
      ['not an object', '[1,2]\n', 1, /must be a JSON object/],
      ['a bad id', '{"id":"a b","input":"x","expected":"y"}\n', 1, /field id: must be letters/],
      ['no id', '{"input":"x","expected":"y"}\n', 1, /field id: .*got nothing/],
      ['a repeated id', '{"id":"a","input":"x","expected":"y"}\n\n{"id":"a","input":"z","expected":"y"}\n', 3, /id "a" is used again \(first on line 1\)/],
      ['both input and messages', '{"id":"a","input":"x","messages":[],"expected":"y"}\n', 1, /exactly one of "input" and "messages"/],
      ['neither input nor messages', '{"id":"a","expected":"y"}\n', 1, /exactly one of "input" and "messages"/],
      ['a non-string input', '{"id":"a","input":3,"expected":"y"}\n', 1, /field input: must be a string/],
      ['bad messages', '{"id":"a","messages":[{"role":"tool","content":"x"}],"expected":"y"}\n', 1, /field messages: item 0/],
      ['no expected', '{"id":"a","input":"x"}\n', 1, /has no "expected"/],
      ['an unknown grader', '{"id":"a","input":"x","expected":"y","grader":"fuzzy"}\n', 1, /field grader: unknown grader "fuzzy"/],
    ];
    for (const [what, text, line, message] of bad) {
      it(`names the file and line of ${what}`, () => {
        const err = lineError(text);
        expect(err.line).to.equal(line);
        expect(err.message).to.match(message);
      });
    }

    it('refuses an empty file and a missing one, naming them', () => {
      const p = file('\n\n');
      expect(() => readCaseFile(p)).to.throw(DatasetSuiteError, `case file ${p} has no cases`);
      expect(() => readCaseFile(join(tmp.dir, 'nope.jsonl'))).to.throw(DatasetSuiteError, /cannot read case file .*nope\.jsonl: ENOENT/);
    });

    it('a pinned file that changed is refused by its hash, naming the file and both hashes', () => {
      const p = file('{"id":"a","input":"x","expected":"y"}\n');
      const { sha256 } = readCaseFile(p);
      writeFileSync(p, '{"id":"a","input":"x","expected":"z"}\n');
      expect(() => readPinnedCaseFile(p, sha256)).to.throw(
        DataChangedError,
        new RegExp(`case file ${p} changed since the run recorded it: sha256 [0-9a-f]{64}, recorded ${sha256}`),
      );
      expect(() => readPinnedCaseFile(join(tmp.dir, 'gone.jsonl'), sha256)).to.throw(DataChangedError, /is missing or unreadable/);
    });
  });

  describe('templates', () => {
    it('lists and fills {{name}} placeholders; other braces stay literal; non-strings render as JSON', () => {
      const t = 'Q: {{ input }} ({{topic}}) {"json": {{n}}} {{input}} {{ not valid }}';
      expect(templateVars(t)).to.deep.equal(['input', 'topic', 'n']);
      expect(missingVars(t, { input: 'x', n: 1 })).to.deep.equal(['topic']);
      expect(renderTemplate(t, { input: 'x', topic: 'geo', n: [1] })).to.equal('Q: x (geo) {"json": [1]} x {{ not valid }}');
    });

    it('a case lacking a variable a prompt uses is refused at load, naming file, line, case, prompt and variable', () => {
      const p = file('{"id":"a","input":"x","expected":"y","lang":"fr"}\n{"id":"b","input":"x","expected":"y"}\n');
      expect(() => datasetCases(datasetConfig({ data: p, prompts: { v1: 'Q in {{lang}}: {{input}}' } }), tmp.dir)).to.throw(
        CaseLineError,
        `${p} line 2: case b: prompt v1 uses {{lang}}, which this case does not have`,
      );
    });

    it('the system prompt and message contents are templates too; a messages case has no {{input}}', () => {
      const p = file('{"id":"a","messages":[{"role":"user","content":"say {{word}}"}],"expected":"y"}\n');
      expect(() => datasetCases(datasetConfig({ data: p }), tmp.dir)).to.throw(CaseLineError, /line 1: case a: messages item 0 uses \{\{word\}\}/);
      const q = file('{"id":"a","input":"x","expected":"y"}\n');
      expect(() => datasetCases(datasetConfig({ data: q, system: 'You speak {{input}} and {{lang}}.' }), tmp.dir)).to.throw(
        CaseLineError,
        /the system prompt uses \{\{lang\}\}/,
      );
    });

    it('an expected value that does not suit the effective grader is refused at load, naming the line', () => {
      const p = file('{"id":"a","input":"x","expected":"ok"}\n{"id":"b","input":"x","expected":{"k":1}}\n');
      expect(() => datasetCases(datasetConfig({ data: p }), tmp.dir)).to.throw(
        CaseLineError,
        /line 2: case b: "expected" must be a string \(or number\) for grader exact/,
      );
      expect(datasetCases(datasetConfig({ data: p, grader: 'json-field' }), tmp.dir).map((c) => c.data.grader.kind)).to.deep.equal([
        'json-field',
        'json-field',
      ]);
    });
  });
});
