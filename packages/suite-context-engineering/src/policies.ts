// The scripted agent's play of each scenario, from what it can see in its conversation. With the
// habit its prompt asks for (see policyOf) it does what the scenario checks for; without it, it
// makes the mistake the scenario is built to catch. Answers come from the tool results it got.
import type { PlayerReply } from 'evalog';
import type { Policy, Step, Timeline } from './timeline.js';

const call = (name: string, args: object): PlayerReply => ({ content: null, toolCalls: [{ name, arguments: JSON.stringify(args) }] });
const batch = (calls: [string, object][]): PlayerReply => ({
  content: null,
  toolCalls: calls.map(([name, args]) => ({ name, arguments: JSON.stringify(args) })),
});
const submit = (answer: string, evidence: { source: string; line: number }[]) => call('submit', { answer, evidence });

const ok = (s: Step) => !s.result.startsWith('error:');
const readsOf = (t: Timeline, source: string) => t.steps.flatMap((s, i) => (s.name === 'read_source' && s.args.source === source && ok(s) ? [i] : []));
const lines = (result: string) => new Map([...result.matchAll(/^(\d+)\| (.*)$/gm)].map((m) => [Number(m[1]), m[2]!] as const));
const find = (seen: Map<number, string>, re: RegExp) => [...seen].find(([, text]) => re.test(text));

/** Stale evidence: read, (the source changes), then size the pool from the last read; re-read after the host's notice if the prompt says so. */
export function playStaleEvidence(t: Timeline, p: Policy): PlayerReply {
  const source = 'limits.yaml';
  const reads = readsOf(t, source);
  if (reads.length === 0) return call('read_source', { source });
  const last = reads.at(-1)!;
  if (p.rereadChanged && t.notices.some((n) => n.after > last)) return call('read_source', { source });
  const hit = find(lines(t.steps[last]!.result), /max_connections:\s*\d+/);
  if (!hit) return { content: 'limits.yaml has no max_connections line.' };
  const set = t.steps.find((s) => s.name === 'set_record' && ok(s));
  if (!set) return call('set_record', { key: 'pool_size', value: String(Math.floor(Number(/(\d+)/.exec(hit[1])![1]) * 0.8)) });
  return submit(`pool_size set to ${String(set.args.value)}`, [{ source, line: hit[0] }]);
}

/** Key negation: read every page before deciding if the prompt says so; else decide from the first page's summary. */
export function playKeyNegation(t: Timeline, p: Policy): PlayerReply {
  const source = 'vendor_terms.md';
  const reads = readsOf(t, source).map((i) => t.steps[i]!);
  if (reads.length === 0) return call('read_source', { source, from: 1 });
  const seen = new Map(reads.flatMap((s) => [...lines(s.result)]));
  const total = Number(/ of (\d+)$/m.exec(reads[0]!.result)?.[1] ?? seen.size);
  const unread = Array.from({ length: total }, (_, i) => i + 1).find((n) => !seen.has(n));
  if (p.readToEnd && unread !== undefined) return call('read_source', { source, from: unread });
  const negation = find(seen, /ACME.*\bNOT eligible\b/);
  const decided = negation ?? find(seen, /all registered vendors are eligible/i);
  if (!decided) return { content: 'The terms do not decide it.' };
  const set = t.steps.find((s) => s.name === 'set_record' && ok(s));
  if (!set) return call('set_record', { key: 'vendor.acme.expedited', value: negation ? 'false' : 'true' });
  return submit(`vendor.acme.expedited = ${String(set.args.value)}`, [{ source, line: decided[0] }]);
}

const LEDGERS = ['ledger-eu', 'ledger-us', 'ledger-apac'];
const QUESTION = 'Quote the line that starts with "Q3 refunds total".';

/** Query failure: rerun the failed and cut queries if the prompt says so; else sum whatever the first batch gave. */
export function playQueryFailure(t: Timeline, p: Policy): PlayerReply {
  const answers = new Map<string, { status: string; reply?: string }>();
  const batches = t.steps.filter((s) => s.name === 'query' && ok(s));
  for (const b of batches) {
    const asked = (b.args.queries ?? []) as { source: string }[];
    for (const r of (JSON.parse(b.result) as { results: { query: number; status: string; reply?: string }[] }).results) answers.set(asked[r.query]!.source, r);
  }
  const ask = (sources: string[]) => call('query', { queries: sources.map((source) => ({ source, question: QUESTION })) });
  if (batches.length === 0) return ask(LEDGERS);
  const incomplete = LEDGERS.filter((l) => answers.get(l)?.status !== 'ok');
  if (p.rerunQueries && incomplete.length > 0 && batches.length < 3) return ask(incomplete);
  const usable = LEDGERS.flatMap((l) => {
    const a = answers.get(l);
    const m = a && (a.status === 'ok' || (!p.rerunQueries && a.status === 'truncated')) ? /total:\s*(\d+)(?:\s*\((\S+) L(\d+)\))?/.exec(a.reply ?? '') : null;
    return m ? [{ value: Number(m[1]), line: m[3] ? { source: m[2]!, line: Number(m[3]) } : null }] : [];
  });
  const set = t.steps.find((s) => s.name === 'set_record' && ok(s));
  if (!set) return call('set_record', { key: 'q3.refunds_total', value: String(usable.reduce((n, u) => n + u.value, 0)) });
  return submit(
    `q3.refunds_total = ${String(set.args.value)}`,
    usable.flatMap((u) => (u.line ? [u.line] : [])),
  );
}

const MIGRATIONS = ['M1', 'M2'];
const TICKET = 'ticket.OPS-4412.status';

/**
 * Recovery: read the runbook, apply both migrations in one batch, close the ticket, submit. After a
 * context switch or restart, with that instruction it checks read_state first; without it, it trusts
 * its stale notes (or, after a restart, redoes the side effect the host says it was stopped after).
 */
export function playRecovery(t: Timeline, p: Policy): PlayerReply {
  const source = 'runbook.md';
  const reset = t.notices.filter((n) => /Context window switched|restarted/.test(n.text)).at(-1) ?? null;
  const notes = t.notices.find((n) => /runbook\.md line \d+/.test(n.text))?.text ?? null;
  const read = readsOf(t, source)
    .map((i) => find(lines(t.steps[i]!.result), /exactly once/))
    .find(Boolean);
  const line = read?.[0] ?? (notes ? Number(/runbook\.md line (\d+)/.exec(notes)![1]) : null);
  if (line === null) return call('read_source', { source });
  const since = reset ? t.steps.slice(reset.after) : t.steps;
  const stateAt = since
    .map((s, i) => (s.name === 'read_state' ? i : -1))
    .filter((i) => i >= 0)
    .at(-1);
  if (p.checkStateAfterReset && reset && stateAt === undefined) return call('read_state', {});
  let applied: string[];
  let ticketDone: boolean;
  if (p.checkStateAfterReset && stateAt !== undefined) {
    const state = JSON.parse(since[stateAt]!.result) as { records: Record<string, string>; migrations: string[] };
    const after = since.slice(stateAt + 1).filter(ok);
    applied = [...state.migrations, ...after.filter((s) => s.name === 'apply_migration').map((s) => String(s.args.id))];
    ticketDone = state.records[TICKET] === 'done' || after.some((s) => s.name === 'set_record');
  } else {
    // What the agent's own view shows; after a restart, it doubts the effect the host named.
    const doubted = reset && /restarted/.test(reset.text) ? /apply_migration (\S+)\)/.exec(reset.text)?.[1] : undefined;
    const view = t.steps.filter(ok);
    applied = view.filter((s, i) => s.name === 'apply_migration' && !(String(s.args.id) === doubted && i < reset!.after)).map((s) => String(s.args.id));
    ticketDone = view.some((s) => s.name === 'set_record');
  }
  const open = MIGRATIONS.filter((m) => !applied.includes(m));
  if (open.length > 0) return batch(open.map((id) => ['apply_migration', { id }]));
  if (!ticketDone) return call('set_record', { key: TICKET, value: 'done' });
  return submit('Applied M1 then M2 once each and closed OPS-4412.', [{ source, line }]);
}
