import type { ChatRequest, Player, PlayerReply } from 'evalog';
import { messageText } from 'evalog';
import { playProtocolRequest } from './player-generic.js';
import { LEAD_CONVERSATION_WORDS, playLead } from './player-lead.js';
import { lastPublicReport, parseReport, workerView, type SeenCall, type WorkerView } from './player-view.js';
import { JS_SKILLS, type JsSkill } from './skills-js.js';
import { JSON_SKILLS, jsonArtifact, type JsonSkill } from './skills-json.js';

const LEAD_TAG = '[evalog:context-snapshot:lead]';
const WORKER_TAG = '[evalog:context-snapshot:worker]';
const AGENT_TAG = '[evalog:context-snapshot:agent]';

/** Settings of the scripted play (the tests vary the lead's budget to show what it decides). */
export interface ContextSnapshotPlay {
  /** Words of conversation the isolated lead hands on (see LEAD_CONVERSATION_WORDS). */
  leadConversationWords: number;
}

/**
 * Scripted play of context-snapshot, deciding from each request alone (it never opens the task
 * files, so it cannot see an answer key or a hidden check). The lead hands on the brief (snapshot
 * arm) or a handoff cut by its word budget (isolated arm). The worker reads the bundled documents,
 * writes its artifact with its own skill for the kind of task its brief describes, filling each slot
 * from facts in its own messages, runs the public checks, repairs what their output points at,
 * and reports. An external agent (`--agent`) is played as the worker. A protocol-folder run's
 * requests (the user's protocol text, no evalog tag) get the generic play of player-generic.ts.
 */
export function contextSnapshotPlayerWith(play: ContextSnapshotPlay): Player {
  return (request) => {
    const system = request.messages[0] ? messageText(request.messages[0]) : '';
    if (system.includes(LEAD_TAG)) return playLead(request, system, play.leadConversationWords);
    if (system.includes(WORKER_TAG)) return playWorker(request);
    // An external agent's request is played as the worker's, from its tagged task on (an agent may
    // put messages of its own first; the worker's view reads the system prompt as the first message).
    const agent = request.messages.findIndex((m) => (m.role === 'system' || m.role === 'developer') && messageText(m).includes(AGENT_TAG));
    if (agent >= 0) return playWorker({ ...request, messages: request.messages.slice(agent) });
    return playProtocolRequest(request);
  };
}

/** The built-in scripted player of context-snapshot. */
export const contextSnapshotPlayer: Player = contextSnapshotPlayerWith({ leadConversationWords: LEAD_CONVERSATION_WORDS });

const call = (name: string, args: object): PlayerReply => ({ content: null, toolCalls: [{ name, arguments: JSON.stringify(args) }] });

function playWorker(request: ChatRequest): PlayerReply | null {
  const view = workerView(request);
  const json = JSON_SKILLS.find((s) => s.marker.test(view.conversation));
  const js = json ? undefined : JS_SKILLS.find((s) => s.marker.test(view.conversation));
  if (!json && !js) return null;

  const unread = view.documents.find((d) => !view.read.has(d));
  if (unread) return call('read_reference', { document: unread });

  const reports = view.calls.filter((c): c is SeenCall & { result: string } => c.name === 'run_public_checks' && c.result !== null);
  const artifact = json ? jsonRevision(json, view, reports) : jsRevision(js!, view, reports);
  const writes = view.calls.filter((c) => c.name === 'write_artifact').map((c) => String(c.args.content));
  const last = view.calls.at(-1);
  if (writes.length === 0) return call('write_artifact', { content: artifact });
  if (last?.name === 'write_artifact') return call('run_public_checks', {});
  const report = lastPublicReport(view);
  if (report?.passed) return { content: `Done: saved revision ${writes.length}; the public checks pass on it.` };
  if (artifact !== writes.at(-1)) return call('write_artifact', { content: artifact });
  return { content: `Stopped at revision ${writes.length}: the public checks fail and their output gives nothing more to fix.` };
}

// Keys a public check reported missing get the skill's guess; nothing else changes (values are not revealed).
function jsonRevision(skill: JsonSkill, view: WorkerView, reports: readonly { result: string }[]): string {
  const guessed = new Set<string>();
  for (const r of reports) {
    for (const d of parseReport(r.result).details) {
      const missing = /missing: ([^;]*)/.exec(d)?.[1] ?? '';
      for (const m of missing.matchAll(/"(\w+)"/g)) guessed.add(m[1]!);
    }
  }
  return jsonArtifact(skill.draft(view), guessed);
}

// Each failed public check may change one slot that its output points at, in the order they came.
function jsRevision(skill: JsSkill, view: WorkerView, reports: readonly { result: string }[]): string {
  const fixes = new Set<string>();
  for (const r of reports) {
    const report = parseReport(r.result);
    if (report.passed) continue;
    const fix = skill.repair(report, fixes);
    if (fix) fixes.add(fix);
  }
  return skill.write(view, fixes);
}
