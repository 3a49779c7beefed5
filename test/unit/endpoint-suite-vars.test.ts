// resolveEndpoint with a suite's own endpoint variables: the suite's URL goes with the suite's
// model and key variables only, and the generic endpoint (EVALOG_*, OPENAI_*) never gets a suite's
// key. Names from context-snapshot's adjunct; any suite's work the same way.
import { expect } from 'chai';
import { resolveEndpoint } from '../../src/cli/endpoint.js';
import { InputError } from '../../src/cli/io.js';

const SUITE = { baseUrl: 'CONTEXT_SNAPSHOT_BASE_URL', model: 'CONTEXT_SNAPSHOT_MODEL', apiKey: 'CONTEXT_SNAPSHOT_API_KEY' };
const SUITE_URL = 'https://suite.example.test/v1';
const OTHER_URL = 'https://other.example.test/v1';

describe('resolveEndpoint: a suite’s endpoint variables do not mix with another endpoint’s', () => {
  it('the suite’s URL takes the suite’s model and key, not EVALOG_MODEL, EVALOG_API_KEY or OPENAI_API_KEY', () => {
    const env = {
      CONTEXT_SNAPSHOT_BASE_URL: SUITE_URL,
      CONTEXT_SNAPSHOT_MODEL: 'suite-model',
      EVALOG_MODEL: 'x',
      EVALOG_API_KEY: 'sk-evalog',
      OPENAI_API_KEY: 'sk-openai',
    };
    expect(resolveEndpoint('run', {}, env, SUITE)).to.deep.include({ baseURL: SUITE_URL, model: 'suite-model', apiKey: 'no-key', apiKeyEnv: null });
    expect(resolveEndpoint('run', {}, { ...env, CONTEXT_SNAPSHOT_API_KEY: 'sk-suite' }, SUITE)).to.deep.include({
      apiKey: 'sk-suite',
      apiKeyEnv: 'CONTEXT_SNAPSHOT_API_KEY',
    });
  });

  it('the suite’s URL without the suite’s model is an error naming that variable, though EVALOG_MODEL is set', () => {
    let err: unknown;
    try {
      resolveEndpoint('run', {}, { CONTEXT_SNAPSHOT_BASE_URL: SUITE_URL, EVALOG_MODEL: 'x' }, SUITE);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(InputError);
    expect((err as Error).message)
      .to.include('CONTEXT_SNAPSHOT_MODEL')
      .and.not.include('EVALOG_MODEL');
  });

  it('the generic endpoint never gets the suite’s key', () => {
    const env = { EVALOG_BASE_URL: OTHER_URL, EVALOG_MODEL: 'm', CONTEXT_SNAPSHOT_API_KEY: 'sk-suite', CONTEXT_SNAPSHOT_MODEL: 'suite-model' };
    expect(resolveEndpoint('run', {}, env, SUITE)).to.deep.include({ baseURL: OTHER_URL, model: 'm', apiKey: 'no-key', apiKeyEnv: null });
    expect(resolveEndpoint('run', {}, { ...env, OPENAI_API_KEY: 'sk-openai' }, SUITE)).to.deep.include({ apiKey: 'sk-openai', apiKeyEnv: 'OPENAI_API_KEY' });
  });
});
