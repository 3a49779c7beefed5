import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { resolveEndpoint } from '../../src/cli/endpoint.js';
import { InputError } from '../../src/cli/io.js';
import { ConfigError, resolveConfig } from '../../src/harness/config.js';
import { modelInfo } from '../../src/harness/endpoint.js';
import { SUITES } from '../../src/app/index.js';

const smoke = SUITES.smoke!;

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error, none was thrown');
}

describe('resolveConfig (smoke suite)', () => {
  let dir: string;
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'evalog-config-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('without file or flags is the suite defaults', () => {
    expect(resolveConfig(smoke, undefined, {})).to.deep.equal(smoke.defaults);
  });

  it('a file sets nested keys alone, keeping the other defaults of that object', () => {
    const config = resolveConfig(smoke, file('nested.json', '{"worker":{"turnCap":3}}'), {});
    expect(config.worker).to.deep.equal({ turnCap: 3, timeLimitMs: smoke.defaults.worker.timeLimitMs });
    expect(config.provider).to.deep.equal(smoke.defaults.provider);
  });

  it('flags override the file', () => {
    const path = file('reps.json', '{"repetitions":3,"seed":11}');
    expect(resolveConfig(smoke, path, { repetitions: 5 })).to.include({ repetitions: 5, seed: 11 });
    expect(resolveConfig(smoke, path, { repetitions: undefined })).to.include({ repetitions: 3 });
  });

  it('rejects an unknown top-level key, naming the key and the file', () => {
    const path = file('unknown.json', '{"repetitons":3}');
    const err = thrown(() => resolveConfig(smoke, path, {}));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.name).to.equal('ConfigError');
    expect(err.message).to.contain('repetitons').and.contain(path);
  });

  it('rejects an unknown nested key, naming it, its object and the file', () => {
    const path = file('unknown-nested.json', '{"worker":{"turnCap":3,"turnLimit":4}}');
    const err = thrown(() => resolveConfig(smoke, path, {}));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.contain('turnLimit').and.contain('worker').and.contain(path);
  });

  it('rejects a value of the wrong type, naming the field path and the file', () => {
    const path = file('type.json', '{"worker":{"turnCap":"eight"}}');
    const err = thrown(() => resolveConfig(smoke, path, {}));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.contain('field worker.turnCap').and.contain(path);
  });

  it('rejects an out-of-range flag, naming the field', () => {
    const err = thrown(() => resolveConfig(smoke, undefined, { concurrency: 0 }));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.contain('field concurrency');
  });

  it('reports an unreadable file with its path and the system error code', () => {
    const path = join(dir, 'missing.json');
    const err = thrown(() => resolveConfig(smoke, path, {}));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.contain(path).and.contain('ENOENT');
  });

  it('reports a file that is not JSON, naming the file', () => {
    const path = file('bad.json', '{"repetitions": 3,');
    const err = thrown(() => resolveConfig(smoke, path, {}));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.contain(path).and.contain('not valid JSON');
  });

  it('reports a JSON file that is not an object', () => {
    const path = file('array.json', '[1, 2]');
    expect(thrown(() => resolveConfig(smoke, path, {})).message).to.contain(path).and.contain('JSON object');
  });

  it('accepts a subset of known cases and names an unknown case id with the known ones', () => {
    expect(resolveConfig(smoke, undefined, { cases: ['fruit_basket'] }).cases).to.deep.equal(['fruit_basket']);
    const err = thrown(() => resolveConfig(smoke, undefined, { cases: ['fruit_basket', 'fruit_bsket'] }));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.contain('"fruit_bsket"').and.contain('fruit_basket').and.not.contain('"fruit_basket"');
  });
});

describe('resolveEndpoint', () => {
  const SECRET = 'sk-test-very-secret';
  const URL_VALUE = 'https://llm.example.test/v1';

  it('is the scripted model by default', () => {
    expect(resolveEndpoint('run', {}, {})).to.deep.equal({ scripted: true });
  });

  it('ignores a model id from the environment when no endpoint is configured', () => {
    expect(resolveEndpoint('run', {}, { EVALOG_MODEL: 'gpt-x', EVALOG_API_KEY: SECRET })).to.deep.equal({ scripted: true });
  });

  it('--scripted wins over a configured endpoint', () => {
    expect(resolveEndpoint('run', { scripted: true }, { EVALOG_BASE_URL: URL_VALUE, EVALOG_MODEL: 'm' })).to.deep.equal({ scripted: true });
  });

  it('--model without an endpoint is an error naming the missing setting', () => {
    const err = thrown(() => resolveEndpoint('run', { model: 'gpt-x' }, {}));
    expect(err).to.be.instanceOf(InputError);
    expect(err.message).to.contain('--model').and.contain('--base-url');
  });

  it('an endpoint without a model id is an error', () => {
    expect(thrown(() => resolveEndpoint('run', {}, { EVALOG_BASE_URL: URL_VALUE }))).to.be.instanceOf(InputError);
  });

  it('an endpoint that is not http(s) is an error naming where it came from', () => {
    const err = thrown(() => resolveEndpoint('run', { model: 'm' }, { OPENAI_BASE_URL: 'llm.example.test' }));
    expect(err).to.be.instanceOf(InputError);
    expect(err.message).to.contain('OPENAI_BASE_URL');
  });

  it('records the names of the variables, never their values', () => {
    const env = { EVALOG_BASE_URL: URL_VALUE, EVALOG_MODEL: 'gpt-x', EVALOG_API_KEY: SECRET };
    const endpoint = resolveEndpoint('run', {}, env);
    expect(endpoint).to.deep.include({ scripted: false, baseURL: URL_VALUE, apiKey: SECRET, model: 'gpt-x', baseUrlEnv: 'EVALOG_BASE_URL', apiKeyEnv: 'EVALOG_API_KEY' });
    const recorded = JSON.stringify(modelInfo(endpoint));
    expect(JSON.parse(recorded)).to.deep.equal({ name: 'gpt-x', scripted: false, baseUrlEnv: 'EVALOG_BASE_URL', apiKeyEnv: 'EVALOG_API_KEY' });
    expect(recorded).to.not.contain(SECRET).and.not.contain('llm.example.test');
  });

  it('falls back to the OPENAI_* variables', () => {
    const endpoint = resolveEndpoint('run', {}, { OPENAI_BASE_URL: URL_VALUE, EVALOG_MODEL: 'm', OPENAI_API_KEY: SECRET });
    expect(modelInfo(endpoint)).to.include({ baseUrlEnv: 'OPENAI_BASE_URL', apiKeyEnv: 'OPENAI_API_KEY' });
  });

  it('--api-key-env names the variable to read the key from', () => {
    const endpoint = resolveEndpoint('run', { 'base-url': URL_VALUE, model: 'm', 'api-key-env': 'TEAM_KEY' }, { TEAM_KEY: SECRET, EVALOG_API_KEY: 'other' });
    expect(endpoint).to.deep.include({ apiKey: SECRET, apiKeyEnv: 'TEAM_KEY' });
    expect(JSON.stringify(modelInfo(endpoint))).to.not.contain(SECRET).and.not.contain('llm.example.test');
  });

  it('--api-key-env naming an unset variable is an error naming it', () => {
    const err = thrown(() => resolveEndpoint('run', { 'base-url': URL_VALUE, model: 'm', 'api-key-env': 'TEAM_KEY' }, { EVALOG_API_KEY: SECRET }));
    expect(err).to.be.instanceOf(InputError);
    expect(err.message).to.contain('TEAM_KEY').and.not.contain(SECRET);
  });

  it('without any key variable, calls keyless and records no key variable', () => {
    expect(resolveEndpoint('run', { 'base-url': URL_VALUE, model: 'm' }, {})).to.deep.include({ apiKeyEnv: null });
  });
});
