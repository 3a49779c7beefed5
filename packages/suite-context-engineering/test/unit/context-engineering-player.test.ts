import { expect } from 'chai';
// The scripted model's request parser has no public counterpart (a player is given a parsed ChatRequest).
import { parseChatRequest } from '../../../../src/providers/scripted/index.js';
import { contextEngineeringPlayer, policyOf } from '../../src/player.js';
import { AGENT_TAG, loadPrompts } from '../../src/prompts.js';
import { loadScenarios } from '../../src/scenarios.js';

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

describe("scripted context-engineering player: an external agent's conversation", () => {
  const { presets } = loadPrompts();
  // An external agent owns its conversation: the host's notice comes appended to the tool result.
  const externalStale = (policyText: string) => {
    const r = staleRequest('verify-v1', policyText);
    const [system, task, asked, read] = r.messages;
    return { ...r, messages: [system!, task!, asked!, { ...read!, content: `${read!.content as string}\n[host] limits.yaml was changed since you read it.` }] };
  };

  it('reads a notice appended to a tool result as a notice after that step, and the read before it as the read', () => {
    expect(contextEngineeringPlayer(externalStale(presets['verify-v1']), { rng: () => 0.5, seed: 0 })?.toolCalls?.[0]?.name).to.equal('read_source');
    const skim = contextEngineeringPlayer(externalStale(presets['skim-v1']), { rng: () => 0.5, seed: 0 });
    // The stale read's number, not the notice's text, sizes the pool.
    expect(skim?.toolCalls?.[0]).to.deep.include({ name: 'set_record' });
    expect(JSON.parse(skim!.toolCalls![0]!.arguments)).to.have.property('key', 'pool_size');
  });

  it('after a successful submit, answers with the submitted answer and no tool call, so the agent ends', () => {
    const r = staleRequest('verify-v1', presets['verify-v1']);
    const submit = { id: 'c9', type: 'function' as const, function: { name: 'submit', arguments: '{"answer":"pool_size set to 40","evidence":[]}' } };
    const done = parseChatRequest({
      model: 'm',
      messages: [...r.messages, { role: 'assistant', content: null, tool_calls: [submit] }, { role: 'tool', tool_call_id: 'c9', content: 'submitted' }],
    });
    expect(contextEngineeringPlayer(done, { rng: () => 0.5, seed: 0 })).to.deep.equal({ content: 'pool_size set to 40' });
  });
});
