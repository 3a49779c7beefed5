import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { durationMs, runOverrides, samplingOverrides } from '../../src/cli/run-flags.js';
import { InputError } from '../../src/cli/io.js';
import { resolveConfig } from '../../src/harness/orchestration/config.js';
import { suiteNamed } from '../../src/app/index.js';

describe('sampling and call flags of evalog run', () => {
  it('map to model.* and provider.* keys, only those given', () => {
    expect(samplingOverrides({})).to.deep.equal({});
    expect(samplingOverrides({ temperature: '0.7', 'max-tokens': '256', 'reasoning-effort': 'low', timeout: '30s', 'max-attempts': '5' })).to.deep.equal({
      model: { temperature: 0.7, maxTokens: 256, reasoningEffort: 'low' },
      provider: { timeoutMs: 30_000, maxAttempts: 5 },
    });
    expect(samplingOverrides({ temperature: '0' })).to.deep.equal({ model: { temperature: 0 } });
  });

  it('are refused by name for a suite that fixes them itself (context-engineering), never silently ignored', () => {
    const cells = { name: 'context-engineering', fixedSampling: 'its frozen cells fix sampling' };
    expect(() => samplingOverrides({ timeout: '30s' }, cells)).to.throw(
      InputError,
      /^evalog run: --timeout does not apply to suite context-engineering: its frozen cells/,
    );
    expect(samplingOverrides({}, cells)).to.deep.equal({});
    expect(samplingOverrides({ temperature: '1' }, { name: 'dataset' })).to.deep.equal({ model: { temperature: 1 } });
  });

  it('read a timeout as ms, s or m, a bare number as milliseconds', () => {
    expect(durationMs('timeout', '1500')).to.equal(1500);
    expect(durationMs('timeout', '250ms')).to.equal(250);
    expect(durationMs('timeout', '1.5s')).to.equal(1500);
    expect(durationMs('timeout', '2m')).to.equal(120_000);
  });

  it('refuse values out of range with one line naming the flag', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ temperature: '2.5' }, /^evalog run: --temperature must be a number from 0 to 2, got 2\.5$/],
      [{ temperature: 'hot' }, /^evalog run: --temperature must be a number from 0 to 2, got "hot"$/],
      [{ temperature: '-1' }, /--temperature must be a number from 0 to 2/],
      [{ 'max-tokens': '0' }, /^evalog run: --max-tokens must be between 1 and 1000000, got 0$/],
      [{ 'max-tokens': '1.5' }, /--max-tokens must be an integer/],
      [{ 'max-attempts': '21' }, /^evalog run: --max-attempts must be between 1 and 20, got 21$/],
      [{ 'reasoning-effort': 'max' }, /^evalog run: --reasoning-effort must be one of none, minimal, low, medium, high, got "max"$/],
      [{ timeout: '0' }, /^evalog run: --timeout must be from 1ms to 24 hours/],
      [{ timeout: '10h' }, /^evalog run: --timeout must be a duration \(e\.g\. 30s/],
      [{ timeout: '25h' }, /--timeout must be a duration/],
      [{ timeout: '1441m' }, /--timeout must be from 1ms to 24 hours/],
    ];
    for (const [values, message] of cases) {
      expect(() => samplingOverrides(values), JSON.stringify(values)).to.throw(InputError, message);
    }
    const smoke = suiteNamed('smoke')!;
    expect(() => runOverrides(smoke, { limit: '0' }, '.')).to.throw(InputError, /^evalog run: --limit must be between 1 and /);
    expect(() => runOverrides(smoke, { sample: 'x' }, '.')).to.throw(InputError, /^evalog run: --sample must be an integer, got "x"$/);
    expect(() => runOverrides(smoke, { repetitions: '0' }, '.')).to.throw(InputError, /^evalog run: --repetitions must be between 1 and 1000/);
    expect(runOverrides(smoke, { sample: '3', case: ['a*'], seed: '0' }, '.').overrides).to.deep.equal({
      seed: 0,
      cases: ['a*'],
      caseSelection: { sample: 3 },
    });
  });

  it('override the config file key by key: the file keeps the keys the flags leave', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalog-sampling-'));
    try {
      const file = join(dir, 'c.yaml');
      writeFileSync(file, 'model:\n  temperature: 1.2\n  maxTokens: 99\nprovider:\n  backoffMs: 7\n  maxAttempts: 4\n');
      const smoke = suiteNamed('smoke')!;
      const { config } = await resolveConfig(smoke, file, samplingOverrides({ temperature: '0.1', timeout: '2s' }));
      expect(config.model).to.deep.equal({ ...smoke.defaults().model, temperature: 0.1, maxTokens: 99 });
      expect(config.provider).to.deep.equal({ ...smoke.defaults().provider, backoffMs: 7, maxAttempts: 4, timeoutMs: 2000 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
