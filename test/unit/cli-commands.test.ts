// The command table `evalog --help` lists is kept apart from the commands' modules (imported only
// when a command runs): each entry must name its module's own command, with its own summary. The
// suites' own commands come from the registry (through suiteCommands) and are held to the same.
import { expect } from 'chai';
import { COMMANDS, suiteCommands } from '../../src/cli/main.js';

const entries = [...COMMANDS, ...(await suiteCommands())];

describe('cli command table', () => {
  it('names each command once, the suites’ own included', () => {
    const names = entries.map((c) => c.name);
    expect(new Set(names).size).to.equal(names.length);
    expect(names.length, 'the suites add commands of their own').to.be.greaterThan(COMMANDS.length);
  });

  for (const entry of entries) {
    it(`${entry.name}: loads the command of that name and summary`, async () => {
      const command = await entry.load();
      expect({ name: command.name, summary: command.summary }).to.deep.equal({ name: entry.name, summary: entry.summary });
      expect(command.help, 'its --help text').to.be.a('string').and.not.equal('');
    });
  }
});
