import { expect } from 'chai';
import { parseChatRequest } from '../../src/providers/scripted/index.js';
import { contextEngineeringPlayer, policyOf } from '../../src/suites/context-engineering/player.js';
import { AGENT_TAG, loadPrompts } from '../../src/suites/context-engineering/prompts.js';
import { loadScenarios } from '../../src/suites/context-engineering/scenarios.js';

// The stale-evidence situation: limits.yaml read once, then the host says it changed.
function staleRequest(presetName: string, policyText: string) {
  const s = loadScenarios().find((x) => x.scenario === 'stale_evidence')!;
  const lines = s.sources['limits.yaml']!.map((l, i) => `${i + 1}| ${l}`).join('\n');
  return parseChatRequest({
    model: 'm',
    messages: [
      { role: 'system', content: `${AGENT_TAG}${presetName}] ${loadPrompts().agent}\n\n${policyText}` },
      { role: 'user', content: `Task: ${s.task}` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_source', arguments: '{"source":"limits.yaml"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: lines },
      { role: 'user', content: '[host] limits.yaml was changed by a change request since you read it.' },
    ],
  });
}
const nextTool = (presetName: string, text: string) =>
  contextEngineeringPlayer(staleRequest(presetName, text), { rng: () => 0.5, seed: 0 })?.toolCalls?.[0]?.name;

describe('scripted context-engineering player: play follows the instructions in the prompt, not the preset name', () => {
  const { presets } = loadPrompts();

  it('the careful prompt asks for every habit and the quick one for none', () => {
    expect(policyOf(presets['verify-v1'])).to.deep.equal({ rereadChanged: true, readToEnd: true, rerunQueries: true, checkStateAfterReset: true });
    expect(policyOf(presets['skim-v1'])).to.deep.equal({ rereadChanged: false, readToEnd: false, rerunQueries: false, checkStateAfterReset: false });
  });

  it("the careful instructions under the quick preset's name re-read the changed source; the quick ones under the careful name do not", () => {
    expect(nextTool('skim-v1', presets['verify-v1'])).to.equal('read_source');
    expect(nextTool('verify-v1', presets['skim-v1'])).to.equal('set_record');
  });

  it('each habit comes from its own instruction: without the re-read sentence, the rest of the careful prompt acts on the stale read', () => {
    const withoutReread = presets['verify-v1'].replace(/\(1\)[^(]*/, '');
    expect(policyOf(withoutReread)).to.include({ rereadChanged: false, readToEnd: true });
    expect(nextTool('verify-v1', withoutReread)).to.equal('set_record');
  });
});
