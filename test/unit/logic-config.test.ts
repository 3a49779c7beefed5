import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { resolveEndpoint } from '../../src/cli/endpoint.js';
import { InputError } from '../../src/cli/io.js';
import { ConfigError, resolveConfig } from '../../src/harness/orchestration/config.js';
import { modelInfo } from '../../src/harness/endpoint/endpoint.js';
import { suiteNamed } from '../../src/app/index.js';

const smoke = suiteNamed('smoke')!;

/** The resolved config alone (resolveConfig also prepares the suite for it). */
const cfg = async (...args: Parameters<typeof resolveConfig>) => (await resolveConfig(...args)).config;

async function thrown(fn: () => unknown): Promise<Error> {
  try {
    await fn();
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

  it('without file or flags is the suite defaults', async () => {
    expect(await cfg(smoke, undefined, {})).to.deep.equal(smoke.defaults());
  });

  it('a file sets nested keys alone, keeping the other defaults of that object', async () => {
    const config = await cfg(smoke, file('nested.json', '{"worker":{"turnCap":3}}'), {});
    expect(config.worker).to.deep.equal({ turnCap: 3, timeLimitMs: smoke.defaults().worker.timeLimitMs });
    expect(config.provider).to.deep.equal(smoke.defaults().provider);
  });

  it('flags override the file', async () => {
    const path = file('reps.json', '{"repetitions":3,"seed":11}');
    expect(await cfg(smoke, path, { repetitions: 5 })).to.include({ repetitions: 5, seed: 11 });
    expect(await cfg(smoke, path, { repetitions: undefined })).to.include({ repetitions: 3 });
  });

  it('rejects an unknown top-level key, naming the key and the file', async () => {
    const path = file('unknown.json', '{"repetitons":3}');
    const err = await thrown(() => cfg(smoke, path, {}));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.name).to.equal('ConfigError');
    expect(err.message).to.contain('repetitons').and.contain(path);
  });

  it('rejects an unknown nested key, naming it, its object and the file', async () => {
    const path = file('unknown-nested.json', '{"worker":{"turnCap":3,"turnLimit":4}}');
    const err = await thrown(() => cfg(smoke, path, {}));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.contain('turnLimit').and.contain('worker').and.contain(path);
  });

  it('rejects a value of the wrong type, naming the field path and the file', async () => {
    const path = file('type.json', '{"worker":{"turnCap":"eight"}}');
    const err = await thrown(() => cfg(smoke, path, {}));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.contain('field worker.turnCap').and.contain(path);
  });

  it('rejects an out-of-range flag, naming the field', async () => {
    const err = await thrown(() => cfg(smoke, undefined, { concurrency: 0 }));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.contain('field concurrency');
  });

  it('reports an unreadable file with its path and the system error code', async () => {
    const path = join(dir, 'missing.json');
    const err = await thrown(() => cfg(smoke, path, {}));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.contain(path).and.contain('ENOENT');
  });

  it('reports a file that is not JSON, naming the file', async () => {
    const path = file('bad.json', '{"repetitions": 3,');
    const err = await thrown(() => cfg(smoke, path, {}));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.contain(path).and.contain('not valid JSON');
  });

  it('reports a JSON file that is not an object', async () => {
    const path = file('array.json', '[1, 2]');
    expect((await thrown(() => cfg(smoke, path, {}))).message)
      .to.contain(path)
      .and.contain('JSON object');
  });

  it('accepts a subset of known cases and names an unknown case id with the known ones', async () => {
    expect((await cfg(smoke, undefined, { cases: ['fruit_basket'] })).cases).to.deep.equal(['fruit_basket']);
    const err = await thrown(() => cfg(smoke, undefined, { cases: ['fruit_basket', 'fruit_bsket'] }));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.contain('"fruit_bsket"').and.contain('fruit_basket').and.not.contain('"fruit_basket"');
  });
});

describe('resolveEndpoint', () => {
  const SECRET = 'sk-test-very-secret';
  const URL_VALUE = 'https://llm.example.test/v1';

  it('is the scripted model by default', async () => {
    expect(resolveEndpoint('run', {}, {})).to.deep.equal({ scripted: true });
  });

  it('ignores a model id from the environment when no endpoint is configured', async () => {
    expect(resolveEndpoint('run', {}, { EVALOG_MODEL: 'gpt-x', EVALOG_API_KEY: SECRET })).to.deep.equal({ scripted: true });
  });

  it('--scripted wins over a configured endpoint', async () => {
    expect(resolveEndpoint('run', { scripted: true }, { EVALOG_BASE_URL: URL_VALUE, EVALOG_MODEL: 'm' })).to.deep.equal({ scripted: true });
  });

  it('--model without an endpoint is an error naming the missing setting', async () => {
    const err = await thrown(() => resolveEndpoint('run', { model: 'gpt-x' }, {}));
    expect(err).to.be.instanceOf(InputError);
    expect(err.message).to.contain('--model').and.contain('--base-url');
  });

  it('an endpoint without a model id is an error', async () => {
    expect(await thrown(() => resolveEndpoint('run', {}, { EVALOG_BASE_URL: URL_VALUE }))).to.be.instanceOf(InputError);
  });

  it('an endpoint that is not http(s) is an error naming where it came from', async () => {
    const err = await thrown(() => resolveEndpoint('run', { model: 'm' }, { OPENAI_BASE_URL: 'llm.example.test' }));
    expect(err).to.be.instanceOf(InputError);
    expect(err.message).to.contain('OPENAI_BASE_URL');
  });

  it('records the names of the variables, never their values', async () => {
    const env = { EVALOG_BASE_URL: URL_VALUE, EVALOG_MODEL: 'gpt-x', EVALOG_API_KEY: SECRET };
    const endpoint = resolveEndpoint('run', {}, env);
    expect(endpoint).to.deep.include({
      scripted: false,
      baseURL: URL_VALUE,
      apiKey: SECRET,
      model: 'gpt-x',
      baseUrlEnv: 'EVALOG_BASE_URL',
      apiKeyEnv: 'EVALOG_API_KEY',
    });
    const recorded = JSON.stringify(modelInfo(endpoint));
    expect(JSON.parse(recorded)).to.deep.equal({ name: 'gpt-x', scripted: false, baseUrlEnv: 'EVALOG_BASE_URL', apiKeyEnv: 'EVALOG_API_KEY' });
    expect(recorded).to.not.contain(SECRET).and.not.contain('llm.example.test');
  });

  it('falls back to the OPENAI_* variables', async () => {
    const endpoint = resolveEndpoint('run', {}, { OPENAI_BASE_URL: URL_VALUE, EVALOG_MODEL: 'm', OPENAI_API_KEY: SECRET });
    expect(modelInfo(endpoint)).to.include({ baseUrlEnv: 'OPENAI_BASE_URL', apiKeyEnv: 'OPENAI_API_KEY' });
  });

  it('--api-key-env names the variable to read the key from', async () => {
    const endpoint = resolveEndpoint('run', { 'base-url': URL_VALUE, model: 'm', 'api-key-env': 'TEAM_KEY' }, { TEAM_KEY: SECRET, EVALOG_API_KEY: 'other' });
    expect(endpoint).to.deep.include({ apiKey: SECRET, apiKeyEnv: 'TEAM_KEY' });
    expect(JSON.stringify(modelInfo(endpoint)))
      .to.not.contain(SECRET)
      .and.not.contain('llm.example.test');
  });

  it('--api-key-env naming an unset variable is an error naming it', async () => {
    const err = await thrown(() => resolveEndpoint('run', { 'base-url': URL_VALUE, model: 'm', 'api-key-env': 'TEAM_KEY' }, { EVALOG_API_KEY: SECRET }));
    expect(err).to.be.instanceOf(InputError);
    expect(err.message).to.contain('TEAM_KEY').and.not.contain(SECRET);
  });

  it('without any key variable, calls keyless and records no key variable', async () => {
    expect(resolveEndpoint('run', { 'base-url': URL_VALUE, model: 'm' }, {})).to.deep.include({ apiKeyEnv: null });
  });
});
