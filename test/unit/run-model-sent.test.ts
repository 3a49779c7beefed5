import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { planRun } from '../../src/harness/orchestration/launch.js';
import type { ModelEndpoint } from '../../src/harness/endpoint/endpoint.js';
import { loadAllPlugins, suiteNamed } from '../../src/app/index.js';
import { datasetConfig } from '../../src/suites/dataset/index.js';
import { defaultConfig } from '../../packages/suite-context-engineering/src/index.js';
import { tempDir } from '../support/cli.js';

// The studies' suites come from their plugins, loaded on demand.
await loadAllPlugins();

/** A registry suite configured with its defaults. */
const configuredDefaults = (name: string) => {
  const suite = suiteNamed(name)!;
  return suite.configure(suite.defaults());
};

// RunStarted.model (run.json's model) is what the requests will send, for every shape of suite.
const endpoint = (model: string): ModelEndpoint => ({
  scripted: false,
  baseURL: 'http://127.0.0.1:9/v1',
  apiKey: 'k',
  model,
  baseUrlEnv: '--base-url',
  apiKeyEnv: null,
});

describe("planRun: the run's model is the model its requests send", () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let data: string;
  before(async () => {
    tmp = await tempDir();
    data = join(tmp.dir, 'cases.jsonl');
    writeFileSync(data, '{"id":"echo","input":"Reply with exactly: 42","expected":"42"}\n');
  });
  after(() => tmp.cleanup());

  it("an agent suite sends the endpoint's model", async () => {
    const started = planRun(await configuredDefaults('smoke').prepare(), endpoint('gpt-x'));
    expect(started.model).to.deep.equal({ name: 'gpt-x', scripted: false, baseUrlEnv: '--base-url', apiKeyEnv: null });
  });

  it("a session suite sends its cells' frozen model, whatever --model gave the endpoint", async () => {
    const base = defaultConfig();
    const cells = Object.fromEntries(Object.entries(base.cells).map(([k, c]) => [k, { ...c, provider: { ...c.provider, model: 'frozen-1' } }]));
    const ce = suiteNamed('context-engineering')!;
    const started = planRun(await ce.configure({ ...base, cells }).prepare(), endpoint('gpt-x'));
    expect(started.model.name).to.equal('frozen-1');
    expect(started.model).to.not.have.property('arms');
  });

  it('a single-call suite with a model per arm: the endpoint model stays the name and each arm says its own', async () => {
    const ds = suiteNamed('dataset')!;
    const started = planRun(await ds.configure(datasetConfig({ data, models: ['m-1', 'm.2'] })).prepare(), endpoint('m-1'));
    expect(started.model).to.deep.include({ name: 'm-1', arms: { 'm-1': 'm-1', 'm-2': 'm.2' } });
    // One model in the config, the endpoint given another: that one is what is sent.
    const one = planRun(await ds.configure(datasetConfig({ data, models: ['only'] })).prepare(), endpoint('env-model'));
    expect(one.model.name).to.equal('only');
  });
});
