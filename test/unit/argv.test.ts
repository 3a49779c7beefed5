import { expect } from 'chai';
import { joinNegativeValues, nearestOption } from '../../src/harness/suite/argv.js';
import { levenshteinDistance as editDistance } from '../../src/graders/index.js';
import { InputError, intFlag, parseCommandArgs } from '../../src/cli/io.js';

const OPTIONS = { repetitions: { type: 'string' }, concurrency: { type: 'string' }, verbose: { type: 'boolean' } } as const;

describe('command-line parsing: negative numbers, did you mean', () => {
  it('a negative number after a flag that takes a value is its value, and the range check names the flag', () => {
    expect(joinNegativeValues(['--repetitions', '-1', '--verbose', '-h'], OPTIONS)).to.deep.equal(['--repetitions=-1', '--verbose', '-h']);
    expect(joinNegativeValues(['--', '--repetitions', '-1'], OPTIONS)).to.deep.equal(['--', '--repetitions', '-1']);
    const { values } = parseCommandArgs('run', ['--repetitions', '-1'], OPTIONS);
    expect(values.repetitions).to.equal('-1');
    expect(() => intFlag('run', 'repetitions', values.repetitions, 1, 1, 1000))
      .to.throw(InputError)
      .with.property('message', 'evalog run: --repetitions must be between 1 and 1000, got -1');
    expect(parseCommandArgs('run', ['--concurrency=-3'], OPTIONS).values.concurrency).to.equal('-3');
  });

  it('an unknown flag names the nearest known one', () => {
    expect(() => parseCommandArgs('run', ['--repetiton', '2'], OPTIONS))
      .to.throw(InputError)
      .with.property('message', 'evalog run: unknown flag --repetiton; did you mean --repetitions? (see evalog run --help)');
    expect(() => parseCommandArgs('run', ['--zzzzzz'], OPTIONS))
      .to.throw(InputError)
      .with.property('message', 'evalog run: unknown flag --zzzzzz (see evalog run --help)');
    expect(nearestOption('concurency', Object.keys(OPTIONS))).to.equal('concurrency');
    expect(nearestOption('verb', Object.keys(OPTIONS))).to.equal('verbose');
    expect(editDistance('kitten', 'sitting')).to.equal(3);
  });
});
