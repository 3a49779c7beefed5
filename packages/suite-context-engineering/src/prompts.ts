import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from 'evalog';
import type { ChatMessage } from 'evalog';
import { PRESETS, type Cell } from './config.js';
import type { Scenario } from './scenarios.js';

/** The prompts manifest: one revision of the agent's system prompt, its preset policies and the query prompt. */
const PromptsManifest = z
  .object({
    revision: z.string().min(1),
    agent: z.string().min(1),
    presets: z.record(z.enum(PRESETS), z.string().min(1)),
    query: z.string().min(1),
  })
  .strict();
type PromptsManifest = z.infer<typeof PromptsManifest>;

/** Where the prompts live; hashed into provenance, so a resume refuses when they changed. */
export const PROMPTS_MANIFEST = new URL('../manifests/prompts.v1.json', import.meta.url);

// The tags let the scripted model find its role and preset; a real model reads the prose.
/** Tag of the agent's system prompt; the preset follows it. */
export const AGENT_TAG = '[evalog:context-engineering:agent preset=';
/** Tag of a query's system prompt. */
export const QUERY_TAG = '[evalog:context-engineering:query]';

let prompts: PromptsManifest | null = null;
/** The prompts manifest, read once per process. */
export function loadPrompts(): PromptsManifest {
  prompts ??= PromptsManifest.parse(JSON.parse(readFileSync(PROMPTS_MANIFEST, 'utf8')));
  return prompts;
}

/** Checks that a cell names the prompts revision on disk. */
export function checkPromptRevision(name: string, cell: Cell): void {
  const { revision } = loadPrompts();
  if (cell.agent.promptRevision !== revision) {
    throw new ConfigError(
      `config: field cells.${name}.agent.promptRevision: ${JSON.stringify(cell.agent.promptRevision)} is not the prompts manifest's revision ${JSON.stringify(revision)}`,
    );
  }
}

/** The agent's first messages: system prompt with its preset's policy, then the task and what it can see. */
export function agentMessages(s: Scenario, cell: Cell): ChatMessage[] {
  const p = loadPrompts();
  const sources = Object.entries(s.sources)
    .map(([id, lines]) => `${id} (${lines.length} lines)`)
    .join(', ');
  const task = [`Task: ${s.task}`, '', `Sources: ${sources}`, `Records: ${Object.keys(s.records).join(', ')}`];
  if (s.migrations.length > 0) task.push(`Migrations: ${s.migrations.join(', ')}`);
  task.push('Finish by calling submit with your answer and the evidence you relied on.');
  return [
    { role: 'system', content: `${AGENT_TAG}${cell.agent.preset}] ${p.agent}\n\n${p.presets[cell.agent.preset]}` },
    { role: 'user', content: task.join('\n') },
  ];
}

/** One query call: the whole source as material, then the question. */
export function queryMessages(source: string, revision: number, lines: readonly string[], question: string): ChatMessage[] {
  const material = lines.map((l, i) => `${i + 1}| ${l}`).join('\n');
  return [
    { role: 'system', content: `${QUERY_TAG} ${loadPrompts().query}` },
    { role: 'user', content: `Material: source ${source}, revision ${revision}, lines 1-${lines.length}\n${material}\n\nQuestion: ${question}` },
  ];
}
