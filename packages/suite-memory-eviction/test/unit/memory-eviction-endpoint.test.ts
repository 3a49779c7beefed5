// run-qa's endpoint (qaEndpoint): the protocol's own variables only, the protocol's model only, no
// endpoint flags over a pinned protocol, the scripted model only on --scripted. A pinned protocol is
// a stand-in folder pinned to its own hashes (the published files are not in the repository).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { InputError } from 'evalog';
import { writeStandInProtocol } from '../../../../test/support/deermem-protocol.js';
import { qaEndpoint } from '../../src/cli/run-qa.js';
import { loadProtocol, type Protocol } from '../../src/protocol.js';
import { loadProtocolDir } from '../../src/protocol-dir.js';

const URL_VALUE = 'http://127.0.0.1:9/v1';
const OWN = { DEERMEM_EVAL_ANSWER_BASE_URL: URL_VALUE, DEERMEM_EVAL_ANSWER_API_KEY: 'sk-own' };
const OTHERS = { OPENAI_API_KEY: 'sk-openai', OPENAI_BASE_URL: URL_VALUE, EVALOG_BASE_URL: URL_VALUE, EVALOG_API_KEY: 'sk-evalog', EVALOG_MODEL: 'm' };

function refusal(fn: () => unknown): InputError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(InputError);
    expect((err as Error).message.includes('\n')).to.equal(false);
    return err as InputError;
  }
  throw new Error('expected an InputError');
}

describe('memory-eviction run-qa endpoint (qaEndpoint)', () => {
  let dir: string;
  let pinned: Protocol;
  const bundled = loadProtocol();
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'evalog-me-endpoint-'));
    const standIn = writeStandInProtocol(dir);
    pinned = loadProtocolDir(dir, { pins: standIn.artifacts });
    expect(pinned.source.pinned).to.equal(true);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("takes the endpoint and key from the config's variables and the model from qa.model", () => {
    expect(qaEndpoint(pinned, {}, { ...OTHERS, ...OWN })).to.deep.equal({
      scripted: false,
      baseURL: URL_VALUE,
      apiKey: 'sk-own',
      model: 'deepseek-v4-flash',
      baseUrlEnv: 'DEERMEM_EVAL_ANSWER_BASE_URL',
      apiKeyEnv: 'DEERMEM_EVAL_ANSWER_API_KEY',
    });
  });

  it('names every missing variable; no other endpoint’s variable stands in; never the scripted model by default', () => {
    expect(refusal(() => qaEndpoint(bundled, {}, OTHERS)).message).to.include(
      'missing provider environment variables: DEERMEM_EVAL_ANSWER_BASE_URL, DEERMEM_EVAL_ANSWER_API_KEY',
    );
    const onlyUrl = refusal(() => qaEndpoint(bundled, {}, { ...OTHERS, DEERMEM_EVAL_ANSWER_BASE_URL: URL_VALUE })).message;
    expect(onlyUrl).to.include('variables: DEERMEM_EVAL_ANSWER_API_KEY').and.not.include('sk-');
    expect(qaEndpoint(bundled, { scripted: true }, {})).to.deep.equal({ scripted: true });
  });

  it('refuses --model for any protocol, and --base-url / --api-key-env over a pinned one, each in one line', () => {
    expect(refusal(() => qaEndpoint(bundled, { model: 'other' }, OWN)).message)
      .to.include('--model')
      .and.include('qa.model');
    expect(refusal(() => qaEndpoint(pinned, { 'base-url': URL_VALUE }, OWN)).message)
      .to.include('--base-url')
      .and.include('pinned');
    expect(refusal(() => qaEndpoint(pinned, { 'api-key-env': 'TEAM_KEY' }, { ...OWN, TEAM_KEY: 'k' })).message).to.include('--api-key-env');
    // evalog's own variant may be pointed elsewhere: the URL is not part of the request body.
    expect(qaEndpoint(bundled, { 'base-url': URL_VALUE }, { DEERMEM_EVAL_ANSWER_API_KEY: 'k' })).to.deep.include({
      baseURL: URL_VALUE,
      baseUrlEnv: '--base-url',
    });
  });
});
