import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ConfigFileError, readConfigFile } from '../../src/harness/orchestration/config-file.js';
import { ConfigError, resolveConfig } from '../../src/harness/orchestration/config.js';
import { locateJsonError, parseJsonText, stripBom } from '../../src/core/text-input.js';
import { suiteNamed } from '../../src/app/index.js';

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error, none was thrown');
}

describe('text input: BOM and JSON error position', () => {
  it('strips one leading UTF-8 BOM and nothing else', () => {
    expect(stripBom('\ufeff{"a":1}')).to.equal('{"a":1}');
    expect(stripBom('{"a":"\ufeff"}')).to.equal('{"a":"\ufeff"}');
  });

  it('finds the line and column where a JSON text stops being JSON', () => {
    const cases: [string, number, number, RegExp][] = [
      ['{"a": 1,\n"b": }', 2, 6, /expected a JSON value, found "}"/],
      ['{\n  "a": 1\n  "b": 2\n}', 3, 3, /expected "," or "}"/],
      ['[1, 2,\n]', 2, 1, /JSON value/],
      ['{"a": tru}', 1, 7, /JSON value/],
      ['{"a": "x\ny"}', 1, 9, /control character/],
      ['{"a": 1}\n{"b": 2}', 2, 1, /end of the text/],
      ['{"a": 1', 1, 8, /end of the text/],
      ["{'a': 1}", 1, 2, /quoted key/],
    ];
    for (const [text, line, column, detail] of cases) {
      const at = locateJsonError(text);
      expect(at, text).to.include({ line, column });
      expect(at!.detail, text).to.match(detail);
      const parsed = parseJsonText(text);
      expect(parsed.ok, text).to.equal(false);
    }
  });

  it('finds no error in valid JSON, whatever JSON.parse accepts', () => {
    for (const text of ['{}', '[]', ' {"a": [1, -2.5e3, "\\u00e9\\n", true, false, null, {"b": {}}]} ', '"x"', '0', '-0.1']) {
      expect(locateJsonError(text), text).to.equal(null);
      expect(parseJsonText(text)).to.deep.equal({ ok: true, value: JSON.parse(text) });
    }
  });
});

describe('readConfigFile: YAML or JSON by name', () => {
  let dir: string;
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'evalog-config-file-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads .yaml and .yml as YAML (1.2 core: yes stays a string) and the rest as JSON', () => {
    expect(readConfigFile(file('a.yaml', 'repetitions: 2\nmodel:\n  temperature: 0.5\nname: yes\n'))).to.deep.equal({
      repetitions: 2,
      model: { temperature: 0.5 },
      name: 'yes',
    });
    expect(readConfigFile(file('b.YML', 'seed: 7\n'))).to.deep.equal({ seed: 7 });
    expect(readConfigFile(file('c.json', '{"seed": 7}'))).to.deep.equal({ seed: 7 });
    expect(readConfigFile(file('d.conf', '{"seed": 8}'))).to.deep.equal({ seed: 8 });
  });

  it('accepts a UTF-8 BOM at the start of a JSON or a YAML file', () => {
    expect(readConfigFile(file('bom.json', '\ufeff{"seed": 3}'))).to.deep.equal({ seed: 3 });
    expect(readConfigFile(file('bom.yaml', '\ufeffseed: 4\n'))).to.deep.equal({ seed: 4 });
  });

  it('names the file and the line of a syntax error', () => {
    const json = file('bad.json', '{\n  "seed": 1,\n  "repetitions": \n}\n');
    const e1 = thrown(() => readConfigFile(json));
    expect(e1).to.be.instanceOf(ConfigFileError);
    expect(e1.message).to.equal(`config file ${json} is not valid JSON at line 4 column 1: expected a JSON value, found "}"`);
    const yaml = file('bad.yaml', 'seed: 1\nmodel: [\n');
    expect(thrown(() => readConfigFile(yaml)).message).to.match(new RegExp(`^config file ${yaml} is not valid YAML at line 3 column 1: `));
    const dup = file('dup.yaml', 'seed: 1\nseed: 2\n');
    expect(thrown(() => readConfigFile(dup)).message).to.equal(`config file ${dup} is not valid YAML at line 2 column 1: Map keys must be unique`);
    expect(thrown(() => readConfigFile(dup)).message).to.not.include('\n');
  });

  it('refuses a file that is not a mapping, naming it', () => {
    const list = file('list.yaml', '- 1\n- 2\n');
    expect(thrown(() => readConfigFile(list)).message).to.equal(`config file ${list} must hold a YAML mapping`);
    const empty = file('empty.yaml', '');
    expect(thrown(() => readConfigFile(empty)).message).to.equal(`config file ${empty} must hold a YAML mapping`);
  });

  it('resolveConfig takes a YAML config like a JSON one, and schema errors still name the field and the file', async () => {
    const smoke = suiteNamed('smoke')!;
    const yaml = file('smoke.yaml', 'repetitions: 3\nprovider:\n  maxAttempts: 2\n');
    const { config } = await resolveConfig(smoke, yaml, {});
    expect(config.repetitions).to.equal(3);
    expect(config.provider).to.deep.equal({ ...smoke.defaults().provider, maxAttempts: 2 });
    const bad = file('bad-field.yaml', 'repetitions: 0\n');
    const err = await resolveConfig(smoke, bad, {}).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).to.be.instanceOf(ConfigError);
    expect(err!.message).to.match(new RegExp(`^config file ${bad}: field repetitions \\(line 1\\): `));
  });

  it('names the line of the key a schema error is about, in YAML and in JSON', async () => {
    const smoke = suiteNamed('smoke')!;
    const message = (path: string) =>
      resolveConfig(smoke, path, {}).then(
        () => '',
        (e: unknown) => (e as Error).message,
      );
    const yaml = file('nested.yaml', '# settings\nrepetitions: 2\nmodel:\n  maxTokens: 10\n  temperature: 7\n');
    expect(await message(yaml)).to.match(new RegExp(`^config file ${yaml}: field model.temperature \\(line 5\\): `));
    const json = file('nested.json', '{\n  "seed": 1,\n  "worker": {\n    "turnCap": 3,\n    "turnLimit": 4\n  }\n}\n');
    expect(await message(json)).to.match(new RegExp(`^config file ${json}: field worker.turnLimit \\(line 5\\): `));
    // A bad value from a flag is not the file's: no line.
    const plain = file('plain.yaml', 'seed: 1\n');
    const flagged = await resolveConfig(smoke, plain, { repetitions: 0 }).then(
      () => '',
      (e: unknown) => (e as Error).message,
    );
    expect(flagged).to.match(new RegExp(`^config file ${plain}: field repetitions: `));
  });
});
