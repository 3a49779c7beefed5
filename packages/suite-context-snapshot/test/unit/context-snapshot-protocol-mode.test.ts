// context-snapshot as the published runner runs it (issue 16, C3 and C4), for the bundled variant
// and for a protocol folder (the stand-in authored for evalog's tests, read with real python3):
// the worker is told no document's name it was not given, the lead is forced to call `task` with
// the production tool's fields, acceptance criteria reach the worker and the rows, and
// brief_policy_adhered means what the runner means by it.
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { CaseSpec, ChatMessage, Player, StoredEvent, ToolCallRequest } from 'evalog';
import { sha256, UserError } from 'evalog';
// TODO(api): engine internals with no public export: the pure fold of a run's events into its
// outputs, and the scripted server's request parsing (the players' input).
import { deriveOutputs } from '../../../../src/projections/outputs.js';
import { parseChatRequest } from '../../../../src/providers/scripted/index.js';
import { succeededData, Timeline } from '../../../../test/support/build-events.js';
import { playJob } from '../../../../test/support/cs-play.js';
import { BUNDLED_PROTOCOL_ID, LegacyBundledRunError } from '../../src/config.js';
import { contextSnapshotPlayer, loadTasks, contextSnapshotDefinition as s, type Task } from '../../src/index.js';
import { plausibleArtifact, policyMode } from '../../src/player-generic.js';
import { loadContextSnapshotProtocol } from '../../src/protocol/index.js';
import { protocolTasks } from '../../src/protocol-run.js';
import { contextSnapshotSuite, type CsCase } from '../../src/suite.js';

const STAND_IN = fileURLToPath(new URL('../../../../test/fixtures/context-snapshot-protocol/', import.meta.url));
const bundled: CaseSpec<Task>[] = loadTasks().map((t) => ({ id: t.id, data: t }));
const withDocuments = bundled.filter((c) => Object.keys(c.data.references).length > 0);
const text = (m: ChatMessage) => m.content ?? '';
const taskCall = (args: object): ToolCallRequest[] => [{ id: 'call-1', name: 'task', arguments: JSON.stringify(args) }];
const ctx = <D>(c: CaseSpec<D>) => ({ case: c, artifact: null, revision: 0 });
// The suite's own outputs (rows, summary): the package's suite, not the CLI registry's lookup.
const hooksOf = (name: string) => (name === contextSnapshotSuite.name ? contextSnapshotSuite : undefined);

describe('context-snapshot C3: a worker is told no document name it was not given', function () {
  this.timeout(60_000);
  let protocol: CaseSpec<CsCase>[];
  before(() => {
    protocol = protocolTasks(loadContextSnapshotProtocol(STAND_IN, { allowUnpinned: true }));
  });

  it("the bundled worker's system prompt names none of the bundled documents, in either arm (it listed them all)", () => {
    expect(withDocuments.map((c) => c.id)).to.deep.equal(['email_cleanup', 'fresh_evidence', 'storage_policy']);
    for (const c of withDocuments)
      for (const arm of ['isolated_handoff', 'snapshot']) {
        const system = text(s.agent.workerRequest(c, arm, c.data.brief).messages[0]!);
        for (const doc of Object.keys(c.data.references)) expect(system, `${c.id} ${arm}`).not.to.include(doc);
        expect(text(s.agent.agentTask(c, arm).messages[0]!), `${c.id} agent ${arm}`).not.to.match(/ci-run|contact-policy|storage-policy/);
      }
  });

  it('read_reference of an unknown name answers without naming any document (it listed the available ones)', async () => {
    for (const c of withDocuments) {
      const out = await s.agent.runTool('read_reference', JSON.stringify({ document: 'policy' }), ctx(c));
      for (const doc of Object.keys(c.data.references)) expect(out.result, c.id).not.to.include(doc);
      expect(out.isError).to.equal(true);
    }
    const mirror = protocol.find((c) => c.id === 'mirror_policy')!;
    const out = await s.agent.runTool('read_reference', JSON.stringify({ document: 'mirror' }), ctx(mirror));
    expect(out).to.deep.equal({ result: out.result, isError: false });
    expect(out.result).not.to.match(/mirror-base|mirror-override/);
    const known = await s.agent.runTool('read_reference', JSON.stringify({ document: 'mirror-base' }), ctx(mirror));
    expect(known.result).to.equal((mirror.data as { case: { references: Record<string, string> } }).case.references['mirror-base']);
  });

  it("a protocol worker's system prompt is the protocol's WORKER_SYSTEM alone; only the snapshot arm gets the snapshot", () => {
    const c = protocol.find((x) => x.id === 'tag_list')!;
    const prompts = (c.data as { prompts: { workerSystem: string } }).prompts;
    const isolated = s.agent.workerRequest(c, 'isolated_handoff', 'Do the task.').messages;
    const snapshot = s.agent.workerRequest(c, 'snapshot', 'Do the task.').messages;
    expect(isolated).to.deep.equal([
      { role: 'system', content: prompts.workerSystem },
      { role: 'user', content: 'Do the task.' },
    ]);
    expect(snapshot.map((m) => m.role)).to.deep.equal(['system', 'user', 'user']);
    expect(text(snapshot[1]!)).to.match(/^\[parent-context-snapshot\]\nConversation so far:\n\n\[user\] /);
    expect(text(snapshot[1]!)).to.include('[tool] ');
  });

  it('the scripted bundled worker reads a document only once its messages name it', async () => {
    const email = withDocuments.find((c) => c.id === 'email_cleanup')!.data;
    const named = await playJob(contextSnapshotPlayer, email, 'snapshot');
    expect(named.toolCalls).to.include('read_reference');
    expect(named.passed).to.equal(true);
    // The same task with the naming turns gone from the history: nothing tells the worker the name.
    const unnamed = structuredClone(email);
    unnamed.history = unnamed.history.filter((m) => !m.content.includes('contact-policy'));
    const blind = await playJob(contextSnapshotPlayer, unnamed, 'snapshot');
    expect(blind.toolCalls).not.to.include('read_reference');
    expect(blind.passed).to.equal(false);
  });
});

describe('context-snapshot C4: the lead is forced to call task, with the production fields', function () {
  this.timeout(60_000);
  let protocol: CaseSpec<CsCase>[];
  before(() => {
    protocol = protocolTasks(loadContextSnapshotProtocol(STAND_IN, { allowUnpinned: true }));
  });

  it('the lead request forces the task tool (tool_choice) in both arms and both variants; the tool has the production argument names', () => {
    for (const c of [bundled[0]!, protocol[0]!])
      for (const arm of ['isolated_handoff', 'snapshot']) {
        const r = s.agent.parentRequest(c, arm);
        expect(r.toolChoice, `${c.id} ${arm}`).to.equal('task');
        expect(r.tools.map((t) => t.name)).to.deep.equal(['task']);
      }
    const params = s.agent.parentRequest(bundled[0]!, 'snapshot').tools[0]!.parameters as { properties: object; required: string[] };
    expect(Object.keys(params.properties).sort()).to.deep.equal(['acceptance_criteria', 'context_mode', 'description', 'prompt', 'subagent_type']);
    expect(params.required).to.deep.equal(['prompt', 'subagent_type']);
  });

  it("a protocol lead's system prompt is LEAD_SYSTEM followed directly by the arm's policy; then the snapshot and the current task", () => {
    const c = protocol.find((x) => x.id === 'cache_settings')!;
    const p = (c.data as { prompts: { leadSystem: string; dispatchPolicies: Record<string, string> }; case: { brief: string } }).prompts;
    const messages = s.agent.parentRequest(c, 'snapshot').messages;
    expect(messages[0]).to.deep.equal({ role: 'system', content: p.leadSystem + p.dispatchPolicies.snapshot });
    expect(text(messages[1]!)).to.match(/^\[parent-context-snapshot\]/);
    expect(messages[2]).to.deep.equal({ role: 'user', content: `Current task:\n${(c.data as { case: { brief: string } }).case.brief}` });
  });

  it("accepts the runner's dispatches: context_mode defaults to isolated; acceptance criteria are kept; the arm's mode and general-purpose are required", () => {
    const ok = s.agent.acceptDelegation(taskCall({ prompt: 'p', subagent_type: 'general-purpose' }), 'isolated_handoff');
    expect(ok).to.deep.equal({ ok: true, mode: 'isolated', brief: 'p', acceptanceCriteria: null });
    const criteria = s.agent.acceptDelegation(
      taskCall({ prompt: 'p', subagent_type: 'general-purpose', context_mode: 'snapshot', acceptance_criteria: ['file:a exists'], description: 'd' }),
      'snapshot',
    );
    expect(criteria).to.deep.equal({ ok: true, mode: 'snapshot', brief: 'p', acceptanceCriteria: ['file:a exists'] });
    const refused = (args: object, arm: string) => {
      const d = s.agent.acceptDelegation(taskCall(args), arm);
      return d.ok ? 'accepted' : `${d.reason}: ${d.message}`;
    };
    expect(refused({ prompt: 'p', subagent_type: 'general-purpose' }, 'snapshot')).to.match(/parent_bad_task: context_mode must be "snapshot"/);
    // The field the bundled variant used to read is not the tool's: it does not set the mode.
    expect(refused({ prompt: 'p', subagent_type: 'general-purpose', mode: 'snapshot' }, 'snapshot')).to.match(/context_mode must be "snapshot"/);
    expect(refused({ prompt: 'p', subagent_type: 'bash', context_mode: 'snapshot' }, 'snapshot')).to.match(/general-purpose/);
    expect(refused({ prompt: 'p', subagent_type: 'general-purpose', acceptance_criteria: 'x' }, 'isolated_handoff')).to.match(/acceptance_criteria/);
    expect(refused({ subagent_type: 'general-purpose' }, 'isolated_handoff')).to.match(/prompt/);
    expect(s.agent.acceptDelegation([], 'snapshot')).to.include({ ok: false, reason: 'parent_no_task' });
  });

  it("the lead's acceptance criteria reach the worker after its prompt, never in its system prompt", () => {
    for (const c of [bundled[0]!, protocol[0]!]) {
      const [system, ...rest] = s.agent.workerRequest(c, 'isolated_handoff', 'Write it.', s.defaults, ['the key set is right', 'checks pass']).messages;
      expect(text(system!)).not.to.include('the key set is right');
      const task = text(rest.at(-1)!);
      expect(task.startsWith('Write it.\n\n')).to.equal(true);
      expect(task).to.include('- the key set is right\n- checks pass');
    }
  });

  it("the scripted protocol lead takes its context mode from the policy's last context_mode, and hands the snapshot arm the brief as written", () => {
    expect(policyMode("Set context_mode to 'isolated' or 'snapshot' as below.\nPolicy: context_mode='snapshot'.")).to.equal('snapshot');
    expect(policyMode("Set context_mode to 'isolated' or 'snapshot' as below.\nPolicy: use context_mode = isolated.")).to.equal('isolated');
    expect(policyMode('No mode named here.')).to.equal('isolated');
    const c = protocol.find((x) => x.id === 'duration_seconds')!;
    const brief = (c.data as { case: { brief: string } }).case.brief;
    for (const arm of ['isolated_handoff', 'snapshot']) {
      const lead = s.agent.parentRequest(c, arm);
      const request = parseChatRequest({
        model: 'scripted',
        messages: lead.messages,
        tools: lead.tools.map((t) => ({ type: 'function', function: t })),
        tool_choice: { type: 'function', function: { name: 'task' } },
      });
      const reply = (contextSnapshotPlayer as Player)(request, { rng: () => 0.5, seed: 0 })!;
      const d = s.agent.acceptDelegation(
        reply.toolCalls!.map((t, i) => ({ id: `c${i}`, ...t })),
        arm,
      );
      expect(d.ok, arm).to.equal(true);
      const prompt = (d as { brief: string }).brief;
      if (arm === 'snapshot') expect(prompt).to.equal(brief);
      else {
        expect(prompt.startsWith(brief)).to.equal(true);
        expect(prompt).to.include('[user] Final: the text is one or more groups');
        expect(prompt.split(/\s+/).length).to.be.at.most(700);
      }
    }
  });

  it('the scripted protocol worker writes the kind its brief asks for: a JSON object with the listed keys (stated values kept), or the named Python function', () => {
    expect(JSON.parse(plausibleArtifact('Emit JSON with exactly the keys a_b, c and d_e.'))).to.deep.equal({ a_b: null, c: null, d_e: null });
    expect(JSON.parse(plausibleArtifact("Emit JSON with exactly path, period. It is path='/x', period=5."))).to.deep.equal({ path: '/x', period: 5 });
    expect(plausibleArtifact('Write total_cost(items, rate) as a standalone Python function.')).to.equal('def total_cost(items, rate):\n    return None\n');
  });
});

describe('context-snapshot rows: acceptance_criteria_added, brief_policy_adhered and the worker stop, as the runner records them', () => {
  const RUN = 'cs-rows';
  const BRIEF = 'Emit the settings as JSON.';

  /** One job of `arm` whose lead dispatched `prompt` (with criteria), its worker stopped as given. */
  async function row(
    arm: string,
    prompt: string,
    criteria: string[] | null,
    stop: { reason: string; answer: string | null } = { reason: 'answered', answer: 'done' },
  ) {
    const job = `cache_settings:${arm}:1`;
    const t = new Timeline(RUN);
    t.add(undefined, 0, 'RunStarted', {
      suite: 'context-snapshot',
      config: { protocol: BUNDLED_PROTOCOL_ID, protocolFiles: null },
      configHash: 'h',
      seed: 1703,
      orderSeed: 1,
      jobs: [{ jobId: job, caseId: 'cache_settings', arm, repetition: 1, seed: 1703, meta: { brief_sha256: sha256(BRIEF) } }],
      model: { name: 'm', scripted: true, baseUrlEnv: null, apiKeyEnv: null },
      concurrency: 1,
      provenance: {},
    });
    t.add(job, 0, 'JobStarted', { caseId: 'cache_settings', arm, repetition: 1, seed: 1703 });
    t.add(job, 1, 'ProviderCallSucceeded', succeededData('parent/turn-1/attempt-1'));
    t.add(job, 2, 'TaskDelegated', { mode: arm === 'snapshot' ? 'snapshot' : 'isolated', brief: prompt, words: 4, acceptanceCriteria: criteria });
    t.add(job, 3, 'WorkerStopped', { ...stop, turns: 3 } as never);
    const out = await deriveOutputs(RUN, t.events as StoredEvent[], hooksOf, undefined);
    return { row: out.rows[0] as Record<string, unknown>, summary: out.summary as Record<string, unknown> };
  }

  it('acceptance_criteria_added is true exactly when the lead attached criteria', async () => {
    expect((await row('snapshot', BRIEF, ['file:x exists'])).row.acceptance_criteria_added).to.equal(true);
    expect((await row('snapshot', BRIEF, [])).row.acceptance_criteria_added).to.equal(false);
    expect((await row('snapshot', BRIEF, null)).row.acceptance_criteria_added).to.equal(false);
  });

  it("brief_policy_adhered: the snapshot arm's prompt equals the brief once both are stripped; the isolated arm has none (null)", async () => {
    expect((await row('snapshot', `\n  ${BRIEF}\t\n`, null)).row.brief_policy_adhered).to.equal(true);
    expect((await row('snapshot', `${BRIEF} Also read the notes.`, null)).row.brief_policy_adhered).to.equal(false);
    // A short, complete isolated handoff was "adhered" under evalog's old word-count meaning.
    expect((await row('isolated_handoff', BRIEF, null)).row.brief_policy_adhered).to.equal(null);
  });

  it('a step-capped worker is turn_capped, completed when its last reply had text; the deadline leaves no executor result (TimeoutError)', async () => {
    const capped = (await row('snapshot', BRIEF, null, { reason: 'graph_step_cap', answer: 'partial: wrote revision 2' })).row;
    expect([capped.executor_status, capped.stop_reason, capped.error_type]).to.deep.equal(['completed', 'turn_capped', null]);
    const silent = (await row('snapshot', BRIEF, null, { reason: 'graph_step_cap', answer: null })).row;
    expect([silent.executor_status, silent.stop_reason, silent.error_type]).to.deep.equal(['failed', 'turn_capped', null]);
    const late = (await row('snapshot', BRIEF, null, { reason: 'deadline', answer: null })).row;
    expect([late.executor_status, late.stop_reason, late.error_type, late.clean_success]).to.deep.equal([null, null, 'TimeoutError', false]);
  });

  it("summary.json names the protocol the run ran: evalog's own bundled variant here", async () => {
    expect((await row('snapshot', BRIEF, null)).summary.protocol).to.equal(`${BUNDLED_PROTOCOL_ID}: evalog's own bundled variant, not the published protocol`);
  });
});

describe("context-snapshot config: the bundled variant is labelled as evalog's own", () => {
  it('a config recorded under the published id (which evalog once gave its variant) still validates, but no run is prepared under it', async () => {
    const { protocolDir: _d, allowUnpinned: _a, protocolFiles: _f, protocolCases: _c, ...recorded } = s.defaults;
    const configured = contextSnapshotSuite.configure({ ...recorded, protocol: 'context-snapshot-synthetic-v1' });
    const err = await configured.prepare().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(LegacyBundledRunError).and.instanceOf(UserError);
    expect((err as Error).message).to.include(BUNDLED_PROTOCOL_ID);
    // Another id without a protocol folder is refused by the schema, naming the field.
    const bad = s.configSchema.safeParse({ ...s.defaults, protocol: 'my-protocol-v1' });
    expect(bad.success).to.equal(false);
    expect(bad.error!.issues[0]!.path).to.deep.equal(['protocol']);
  });
});
