// The command table `evalog --help` lists is kept apart from the commands' modules (imported only
// when a command runs): each entry must name its module's own command, with its own summary.
import { expect } from 'chai';
import { COMMANDS } from '../../src/cli/main.js';

describe('cli command table', () => {
  it('names each command once', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).to.equal(names.length);
  });

  for (const entry of COMMANDS) {
    it(`${entry.name}: loads the command of that name and summary`, async () => {
      const command = await entry.load();
      expect({ name: command.name, summary: command.summary }).to.deep.equal({ name: entry.name, summary: entry.summary });
      expect(command.help, 'its --help text').to.be.a('string').and.not.equal('');
    });
  }
});
