import { expect } from 'chai';
describe('sanity', () => {
  it('runs TypeScript tests', () => {
    expect(1 + 1).to.equal(2);
  });
});
