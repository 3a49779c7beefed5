import { expect } from 'chai';
import { own } from '../../src/core/index.js';

describe('own (a copy of a decoded string that keeps nothing else alive)', () => {
  it('gives the same text for null, short and long strings, and for slices of a larger text', () => {
    expect(own(null)).to.equal(null);
    expect(own('')).to.equal('');
    expect(own('brief')).to.equal('brief');
    const text = `${'x'.repeat(1000)}run-1/job/brief_handoff/3${'y'.repeat(1000)}`;
    const slice = text.slice(1000, 1000 + 'run-1/job/brief_handoff/3'.length);
    expect(own(slice)).to.equal('run-1/job/brief_handoff/3');
    expect(own(slice).length).to.equal(slice.length);
  });

  it('stays right past the copies it remembers (more distinct strings than it keeps, each asked twice)', () => {
    const texts = Array.from({ length: 5000 }, (_, i) => `run-42/job-${String(i).padStart(6, '0')}/arm`);
    for (const t of texts) expect(own(t)).to.equal(t);
    // Asked again in another order: the remembered copies were cleared in between, and each answer is still its own text.
    for (const t of [...texts].reverse()) expect(own(t.slice(0))).to.equal(t);
    expect(own('run-42/job-000007/arm')).to.equal('run-42/job-000007/arm');
  });
});
