import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CaseLineError, DatasetSuiteError, readCaseFile } from '../../src/suites/dataset/index.js';
import { tempDir } from '../support/cli.js';

/** The cases as the suite uses them, without where they came from. */
const shapeOf = (path: string) => readCaseFile(path).cases.map(({ line: _l, ...c }) => c);

describe('dataset case files as JSON Lines, a JSON array or CSV', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  before(async () => (tmp = await tempDir()));
  after(() => tmp.cleanup());
  const file = (name: string, text: string | Buffer) => {
    const p = join(tmp.dir, name);
    writeFileSync(p, text);
    return p;
  };
  const lineError = (path: string): CaseLineError => {
    try {
      readCaseFile(path);
    } catch (err) {
      expect(err, path).to.be.instanceOf(CaseLineError);
      expect((err as Error).message.startsWith(`${path} line `)).to.equal(true);
      return err as CaseLineError;
    }
    throw new Error(`no error for ${path}`);
  };

  const JSONL = [
    '{"id":"a","input":"What is 2+2?","expected":"4","topic":"math"}',
    '{"id":"b","messages":[{"role":"user","content":"hi, \\"you\\""}],"expected":{"x":[1,2]},"grader":"json-field:x"}',
    '{"id":"c","input":"line one\\nline two","expected":"two","grader":"contains","topic":""}',
  ].join('\n');

  it('reads the same cases from JSONL, a JSON array and CSV', () => {
    const jsonl = file('same.jsonl', `${JSONL}\n`);
    const json = file('same.json', `[\n${JSONL.split('\n').join(',\n')}\n]\n`);
    const csv = file(
      'same.csv',
      [
        'id,input,messages,expected:json,grader,topic',
        'a,What is 2+2?,,"""4""",,math',
        'b,,"[{""role"":""user"",""content"":""hi, \\""you\\""""}]","{""x"":[1,2]}",json-field:x,',
        'c,"line one\nline two",,"""two""",contains,',
      ].join('\r\n'),
    );
    const expected = shapeOf(jsonl);
    // CSV: the empty topic cell of b is a variable set to "" (a JSONL case without the key has no variable).
    expect(shapeOf(json)).to.deep.equal(expected);
    const fromCsv = shapeOf(csv);
    expect(fromCsv.map((c) => ({ ...c, vars: {} }))).to.deep.equal(expected.map((c) => ({ ...c, vars: {} })));
    expect(fromCsv.map((c) => c.vars)).to.deep.equal([{ topic: 'math' }, { topic: '' }, { topic: '' }]);
    expect(readCaseFile(json).cases.map((c) => c.line)).to.deep.equal([2, 3, 4]);
    expect(readCaseFile(csv).cases.map((c) => c.line)).to.deep.equal([2, 3, 4]);
  });

  it('keeps CSV cells as strings except messages and NAME:json columns', () => {
    const p = file('types.csv', 'id,input,expected,n,n2:json\n1,x,2,3,4\n2,x,2,,\n');
    const [c, d] = readCaseFile(p).cases;
    expect(c).to.deep.include({ id: '1', input: 'x', expected: '2', vars: { n: '3', n2: 4 } });
    // An empty JSON cell is a variable not given; an empty string cell is the empty string.
    expect(d!.vars).to.deep.equal({ n: '' });
  });

  it('hashes the bytes as they are, BOM included, for every format', () => {
    for (const [name, text] of [
      ['h.jsonl', `${JSONL}\n`],
      ['h.json', `[${JSONL.split('\n').join(',')}]`],
      ['h.csv', 'id,input,expected\na,x,y\n'],
    ] as const) {
      const p = file(name, `\ufeff${text}`);
      expect(readCaseFile(p).sha256).to.equal(createHash('sha256').update(readFileSync(p)).digest('hex'));
    }
  });

  it('accepts a UTF-8 BOM at the start of a JSONL, JSON or CSV file', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const jsonl = file('bom.jsonl', Buffer.concat([bom, Buffer.from(`${JSONL}\n`)]));
    expect(readCaseFile(jsonl).cases.map((c) => [c.id, c.line])).to.deep.equal([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    const oneLine = file('bom-one.jsonl', Buffer.concat([bom, Buffer.from('{"id":"z","input":"x","expected":"y"}')]));
    expect(readCaseFile(oneLine).cases.map((c) => c.id)).to.deep.equal(['z']);
    const json = file('bom.json', Buffer.concat([bom, Buffer.from('[{"id":"a","input":"x","expected":"y"}]')]));
    expect(readCaseFile(json).cases.map((c) => c.id)).to.deep.equal(['a']);
    // The BOM is not part of the first header name: "id" is found.
    const csv = file('bom.csv', Buffer.concat([bom, Buffer.from('id,input,expected\na,x,y\n')]));
    expect(readCaseFile(csv).cases.map((c) => c.id)).to.deep.equal(['a']);
  });

  it('names the file and the line of a bad JSON array or a bad item', () => {
    expect(lineError(file('bad-syntax.json', '[\n{"id":"a","input":"x","expected":"y"},\n{"id": }\n]')).message).to.match(
      /line 3: not valid JSON \(column 8\): expected a JSON value, found "}"/,
    );
    expect(lineError(file('bad-item.json', '[\n  {"id":"a","input":"x","expected":"y"},\n  {"id":"b","expected":"y"}\n]')).message).to.match(
      /line 3: case b: give exactly one of "input" and "messages"/,
    );
    expect(lineError(file('dup.json', '[{"id":"a","input":"x","expected":"y"},\n{"id":"a","input":"x","expected":"y"}]')).message).to.match(
      /line 2: id "a" is used again \(first on line 1\)/,
    );
    expect(() => readCaseFile(file('obj.json', '{"id":"a"}'))).to.throw(DatasetSuiteError, /must hold a JSON array of case objects/);
    expect(() => readCaseFile(file('empty.json', '[]'))).to.throw(DatasetSuiteError, /has no cases/);
  });

  it('names the file and the line of a bad CSV header, row or cell', () => {
    const cases: [string, number, RegExp][] = [
      ['id,input,expected\na,"x,y\n', 2, /not valid CSV: a quoted field is not closed/],
      ['input,expected\nx,y\n', 1, /header: no "id" column/],
      ['id,input,input\na,x,y\n', 1, /header: column "input" is given twice/],
      ['id,input,expected\na,x\n', 2, /has 2 fields, the header 3/],
      ['id,input,expected\na,x,y\n\nb,x,\n', 4, /case b: has no "expected"/],
      ['id,messages,expected\na,[oops],y\n', 2, /column messages: not valid JSON/],
      ['id,input,expected:json\na,x,{"a":}\n', 2, /not valid CSV|column expected:json: not valid JSON/],
    ];
    cases.forEach(([text, line, detail], i) => {
      const err = lineError(file(`bad-${i}.csv`, text));
      expect(err.line, text).to.equal(line);
      expect(err.message, text).to.match(detail);
    });
  });
});
