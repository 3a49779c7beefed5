import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { summarizeRows, type SummarizableRow } from '../../src/suites/context-snapshot/index.js';

const DIR = new URL('../../results/context-snapshot/', import.meta.url);

describe('results/context-snapshot (the committed reference run)', () => {
  it('its summary recomputes from its rows, and it is labelled scripted', async () => {
    const rows = (await readFile(new URL('rows.jsonl', DIR), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as SummarizableRow);
    const summary = JSON.parse(await readFile(new URL('summary.json', DIR), 'utf8'));
    expect(rows).to.have.length(16);
    expect(summarizeRows(rows)).to.deep.equal(summary);
    const run = JSON.parse(await readFile(new URL('run.json', DIR), 'utf8'));
    expect(run.model.scripted).to.equal(true);
    expect(run.note).to.match(/scripted/);
  });
});
