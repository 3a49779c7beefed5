import type { SessionToolOutcome, ToolSpec } from 'evalog';
import { argsOf, readRange, type CeEnvironment } from './environment.js';
import { queryMessages } from './prompts.js';
import type { Scenario, ToolName } from './scenarios.js';

const obj = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required, additionalProperties: false });
const location = obj({ source: { type: 'string' }, line: { type: 'integer' } }, ['source', 'line']);

/** Every tool of the suite, by name. */
export const TOOL_SPECS: Record<ToolName, ToolSpec> = {
  read_source: {
    name: 'read_source',
    description: 'Read numbered lines of a source (at most 40 per call).',
    parameters: obj({ source: { type: 'string' }, from: { type: 'integer' }, to: { type: 'integer' } }, ['source']),
  },
  read_state: { name: 'read_state', description: 'Show the records and the migrations applied so far.', parameters: obj({}, []) },
  set_record: {
    name: 'set_record',
    description: 'Set one record to a value (a side effect).',
    parameters: obj({ key: { type: 'string' }, value: { type: 'string' } }, ['key', 'value']),
  },
  apply_migration: {
    name: 'apply_migration',
    description: 'Apply one database migration (a side effect).',
    parameters: obj({ id: { type: 'string' } }, ['id']),
  },
  query: {
    name: 'query',
    description: 'Ask an auxiliary model one question per source, all in one batch; each reads the whole source.',
    parameters: obj({ queries: { type: 'array', items: obj({ source: { type: 'string' }, question: { type: 'string' } }, ['source', 'question']) } }, [
      'queries',
    ]),
  },
  submit: {
    name: 'submit',
    description: 'End the task: your answer and the evidence you relied on.',
    parameters: obj({ answer: { type: 'string' }, evidence: { type: 'array', items: location } }, ['answer', 'evidence']),
  },
};

/** The tools a job offers: the scenario's, without `query` when the cell switches queries off. */
export function toolsFor(s: Scenario, queries: boolean): ToolSpec[] {
  return s.tools.filter((t) => queries || t !== 'query').map((t) => TOOL_SPECS[t]);
}

const fail = (result: string): SessionToolOutcome => ({ result: `error: ${result}`, isError: true });

/** Runs one tool against the environment. Pure: the same environment and arguments give the same outcome. */
export function runTool(s: Scenario, name: string, raw: string, env: CeEnvironment, queries: boolean): SessionToolOutcome {
  const args = argsOf(raw);
  if (!args) return fail('arguments must be a JSON object');
  if (!(s.tools as string[]).includes(name) || (name === 'query' && !queries)) return fail(`unknown tool ${JSON.stringify(name)}`);
  switch (name as ToolName) {
    case 'read_source': {
      const src = env.sources[String(args.source)];
      if (!src) return fail(`no source ${JSON.stringify(args.source)}; sources: ${Object.keys(env.sources).join(', ')}`);
      const range = readRange(args, src.lines.length);
      if (typeof range === 'string') return fail(range);
      const body = src.lines.slice(range.from - 1, range.to).map((l, i) => `${range.from + i}| ${l}`);
      return {
        result: [`source ${String(args.source)}, revision ${src.revision}, lines ${range.from}-${range.to} of ${src.lines.length}`, ...body].join('\n'),
        isError: false,
      };
    }
    case 'read_state':
      return { result: JSON.stringify({ records: env.records, migrations: env.migrations }), isError: false };
    case 'set_record': {
      const key = String(args.key ?? '');
      if (!Object.hasOwn(env.records, key)) return fail(`no record ${JSON.stringify(key)}`);
      if (typeof args.value !== 'string') return fail('value must be a string');
      return {
        result: `set ${key} = ${args.value}`,
        isError: false,
        effects: [{ effect: `set_record:${key}=${args.value}`, target: `records/${key}`, value: args.value, terminal: false }],
      };
    }
    case 'apply_migration': {
      const id = String(args.id ?? '');
      const at = s.migrations.indexOf(id);
      if (at < 0) return fail(`no migration ${JSON.stringify(id)}`);
      const missing = s.migrations.slice(0, at).find((m) => !env.migrations.includes(m));
      if (missing) return fail(`${id} needs ${missing} first`);
      const times = env.migrations.filter((m) => m === id).length + 1;
      return {
        result: `applied ${id} (run ${times} of ${id})`,
        isError: false,
        effects: [{ effect: `apply_migration:${id}`, target: 'migrations', value: id, terminal: false }],
      };
    }
    case 'query': {
      const list = Array.isArray(args.queries) ? (args.queries as Record<string, unknown>[]) : [];
      if (list.length === 0 || list.length > 8) return fail('queries must hold 1 to 8 questions');
      const bad = list.find((q) => !env.sources[String(q?.source)] || typeof q.question !== 'string');
      if (bad) return fail(`each query needs a known source and a question; sources: ${Object.keys(env.sources).join(', ')}`);
      const calls = list.map((q) => {
        const src = env.sources[String(q.source)]!;
        return { messages: queryMessages(String(q.source), src.revision, src.lines, String(q.question)) };
      });
      return { result: '', isError: false, queries: calls };
    }
    case 'submit': {
      const evidence = Array.isArray(args.evidence) ? (args.evidence as Record<string, unknown>[]) : null;
      if (typeof args.answer !== 'string' || !evidence) return fail('submit needs an answer and an evidence list');
      const cited = evidence.map((e) => ({ source: String(e?.source), line: Number(e?.line) }));
      if (cited.some((c) => !Number.isInteger(c.line))) return fail('each evidence item needs a source and an integer line');
      return {
        result: 'submitted',
        isError: false,
        effects: [{ effect: 'submit', target: 'submission', value: JSON.stringify({ answer: args.answer, evidence: cited }), terminal: true }],
      };
    }
    default:
      return fail(`unknown tool ${JSON.stringify(name)}`);
  }
}
