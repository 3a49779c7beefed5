import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { CasePatternError, expandCasePatterns, globRegExp, sampleCases, selectCases } from '../../src/harness/suite/case-selection.js';
import { ConfigError, resolveConfig } from '../../src/harness/orchestration/config.js';
import { planRun, prepareRecorded } from '../../src/harness/orchestration/launch.js';
import type { ModelEndpoint } from '../../src/harness/endpoint/endpoint.js';
import { suiteNamed } from '../../src/app/index.js';

const IDS = Array.from({ length: 30 }, (_, i) => `case-${String(i).padStart(2, '0')}`);
const smoke = suiteNamed('smoke')!;
const SCRIPTED: ModelEndpoint = { scripted: true };
const SMOKE_IDS = ['fruit_basket', 'office_supplies', 'hardware_run', 'bakery_order'];

async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e as Error,
  );
}

describe('case selection (pure)', () => {
  it('globs: * is any run of characters, ? one character, the rest literal', () => {
    expect(globRegExp('json-*').test('json-mars')).to.equal(true);
    expect(globRegExp('json-*').test('xjson-mars')).to.equal(false);
    expect(globRegExp('a?c').test('abc')).to.equal(true);
    expect(globRegExp('a?c').test('abbc')).to.equal(false);
    expect(globRegExp('a.c').test('abc')).to.equal(false);
    expect(globRegExp('a+(b)').test('a+(b)')).to.equal(true);
  });

  it('expands ids and globs to ids in the suite order, each once', () => {
    expect(expandCasePatterns(IDS, ['case-2?', 'case-0*', 'case-21'])).to.deep.equal([...IDS.slice(0, 10), ...IDS.slice(20, 30)]);
    expect(expandCasePatterns(IDS, ['case-05', 'case-01'])).to.deep.equal(['case-01', 'case-05']);
  });

  it('a glob that matches nothing is refused, naming it', () => {
    expect(() => expandCasePatterns(IDS, ['case-0*', 'nope-*'])).to.throw(
      CasePatternError,
      /^case pattern "nope-\*" \(field cases, --case\) matches no case; known: case-00, /,
    );
  });

  it('samples n cases deterministically from the seed, in the suite order; another seed draws others', () => {
    const a = sampleCases(IDS, 5, 42);
    expect(a).to.have.length(5);
    expect(sampleCases(IDS, 5, 42)).to.deep.equal(a);
    expect([...a].sort()).to.deep.equal(a);
    expect(new Set(a).size).to.equal(5);
    const others = [1, 2, 3, 4].map((s) => sampleCases(IDS, 5, s).join());
    expect(others.some((o) => o !== a.join())).to.equal(true);
  });

  it('sampling again from a sample, or more than there are, changes nothing', () => {
    const a = sampleCases(IDS, 7, 9);
    expect(sampleCases(a, 7, 9)).to.deep.equal(a);
    expect(sampleCases(IDS, 100, 9)).to.deep.equal(IDS);
  });

  it('applies patterns, then the sample, then the limit', () => {
    const picked = selectCases(IDS, ['case-1*'], { sample: 6, limit: 4 }, 3);
    expect(picked).to.deep.equal(sampleCases(IDS.slice(10, 20), 6, 3).slice(0, 4));
    expect(selectCases(IDS, null, { limit: 3 }, 0)).to.deep.equal(IDS.slice(0, 3));
    expect(selectCases(IDS, null, {}, 0)).to.deep.equal(IDS);
  });
});

describe('case selection in resolveConfig and planRun (smoke suite)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'evalog-cases-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('records the chosen ids as cases and how they were chosen as caseSelection', async () => {
    const { config } = await resolveConfig(smoke, undefined, { cases: ['*_run', 'fruit_*'] });
    expect(config.cases).to.deep.equal(['fruit_basket', 'hardware_run']);
    expect(config.caseSelection).to.deep.equal({ patterns: ['*_run', 'fruit_*'] });
    const limited = await resolveConfig(smoke, undefined, { caseSelection: { limit: 2 } });
    expect(limited.config.cases).to.deep.equal(SMOKE_IDS.slice(0, 2));
    expect(limited.config.caseSelection).to.deep.equal({ limit: 2 });
    const plan = planRun(limited, SCRIPTED);
    expect([...new Set(plan.jobs.map((j) => j.caseId))].sort()).to.deep.equal(SMOKE_IDS.slice(0, 2).sort());
  });

  it('leaves a config without globs, sample or limit as it was (no caseSelection key)', async () => {
    const { config } = await resolveConfig(smoke, undefined, { cases: ['bakery_order'] });
    expect(config.cases).to.deep.equal(['bakery_order']);
    expect(Object.hasOwn(config, 'caseSelection')).to.equal(false);
  });

  it('a recorded config plans the same jobs on resume, and chosen again gives the same cases', async () => {
    const first = await resolveConfig(smoke, undefined, { seed: 11, caseSelection: { sample: 3, limit: 2 } });
    const started = planRun(first, SCRIPTED);
    const recorded = await prepareRecorded(smoke, started);
    expect(planRun(recorded, SCRIPTED).jobs).to.deep.equal(started.jobs);
    const file = join(dir, 'recorded.json');
    writeFileSync(file, JSON.stringify(started.config));
    const again = await resolveConfig(smoke, file, {});
    expect(again.config.cases).to.deep.equal(first.config.cases);
    expect(planRun(again, SCRIPTED).jobs).to.deep.equal(started.jobs);
  });

  it('the sample is drawn with the run seed', async () => {
    const draws = await Promise.all(
      [1, 2, 3, 4, 5, 6].map(async (seed) => (await resolveConfig(smoke, undefined, { seed, caseSelection: { sample: 2 } })).config.cases!.join()),
    );
    expect(new Set(draws).size).to.be.greaterThan(1);
    const again = await resolveConfig(smoke, undefined, { seed: 1, caseSelection: { sample: 2 } });
    expect(again.config.cases!.join()).to.equal(draws[0]);
  });

  it('an unknown literal id keeps its message; a glob matching nothing is named', async () => {
    const unknown = await rejection(resolveConfig(smoke, undefined, { cases: ['fruit_*', 'no_such'] }));
    expect(unknown).to.be.instanceOf(ConfigError);
    expect(unknown.message).to.match(/^unknown case "no_such" \(field cases\); known: /);
    const glob = await rejection(resolveConfig(smoke, undefined, { cases: ['zz*'] }));
    expect(glob).to.be.instanceOf(CasePatternError);
    expect(glob.message).to.match(/^case pattern "zz\*" \(field cases, --case\) matches no case/);
  });

  it('a config file can choose too (YAML), merged key by key with the flags', async () => {
    const file = join(dir, 'choose.yaml');
    writeFileSync(file, 'cases: ["*_*"]\ncaseSelection:\n  limit: 3\n');
    const { config } = await resolveConfig(smoke, file, { caseSelection: { sample: 3 } });
    expect(config.caseSelection).to.deep.equal({ patterns: ['*_*'], sample: 3, limit: 3 });
    expect(config.cases).to.have.length(3);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'caseSelection:\n  limit: 0\n');
    expect((await rejection(resolveConfig(smoke, bad, {}))).message).to.match(new RegExp(`^config file ${bad}: field caseSelection.limit \\(line 2\\): `));
  });
});
