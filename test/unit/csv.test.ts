import { expect } from 'chai';
import { CsvSyntaxError, csvField, csvRecord, parseCsv } from '../../src/core/csv.js';

const fields = (text: string) => parseCsv(text).map((r) => r.fields);

describe('CSV (RFC 4180)', () => {
  it('splits fields by commas and records by LF or CRLF, with or without a last line end', () => {
    expect(fields('a,b\r\n1,2\r\n')).to.deep.equal([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(fields('a,b\n1,2')).to.deep.equal([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('keeps empty fields, including a trailing one and an empty quoted one', () => {
    expect(fields('a,,c\n,\n"",x\nlast,\n')).to.deep.equal([
      ['a', '', 'c'],
      ['', ''],
      ['', 'x'],
      ['last', ''],
    ]);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks, and gives each record its first line', () => {
    const records = parseCsv('id,text\n1,"a, ""b""\nand c"\n\n2,plain\r\n');
    expect(records).to.deep.equal([
      { line: 1, fields: ['id', 'text'] },
      { line: 2, fields: ['1', 'a, "b"\nand c'] },
      { line: 5, fields: ['2', 'plain'] },
    ]);
  });

  it('keeps spaces and a lone CR as data', () => {
    expect(fields(' a , b\rc\n')).to.deep.equal([[' a ', ' b\rc']]);
  });

  it('refuses bad quoting, naming the line', () => {
    const cases: [string, number, RegExp][] = [
      ['a,b\n1,"open\n2,3\n', 2, /quoted field is not closed/],
      ['a,b\n1,"x"y\n', 2, /"y" after the closing quote/],
      ['a,b\n\n1,x"y\n', 3, /quote inside an unquoted field/],
      ['a\n"multi\nline"z\n', 3, /after the closing quote/],
    ];
    for (const [text, line, detail] of cases) {
      let err: unknown = null;
      try {
        parseCsv(text);
      } catch (e) {
        err = e;
      }
      expect(err, text).to.be.instanceOf(CsvSyntaxError);
      expect((err as CsvSyntaxError).line, text).to.equal(line);
      expect((err as CsvSyntaxError).detail, text).to.match(detail);
    }
  });

  it('writes fields that read back as they were', () => {
    expect(csvField('plain')).to.equal('plain');
    expect(csvField('a,b')).to.equal('"a,b"');
    expect(csvField('say "hi"')).to.equal('"say ""hi"""');
    const values = ['x', 'a,b', 'q"q', 'two\nlines', ' edge', '', 'crlf\r\nend'];
    expect(fields(csvRecord(values) + csvRecord(['1', '2', '3', '4', '5', '6', '7']))).to.deep.equal([values, ['1', '2', '3', '4', '5', '6', '7']]);
  });
});
