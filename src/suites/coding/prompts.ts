import type { ChatMessage, ToolSpec } from '../../providers/chat.js';
import { TASK_FILE, type CodingCase } from './cases.js';

/** What the parent hands the worker, per arm: the whole statement, or the goal and where the statement is. */
export const ARM_MODES: Readonly<Record<string, 'full' | 'pointer'>> = { full_brief: 'full', pointer_brief: 'pointer' };

/** The bracketed tags let the scripted model recognise its role; a real model reads the prose. */
export const TAGS = { parent: '[evalog:coding:parent', worker: '[evalog:coding:worker]', agent: '[evalog:coding:agent]' } as const;

/** The parent's one tool. */
export const TASK_TOOL: ToolSpec = {
  name: 'task',
  description: 'Delegate the task to a worker. Call exactly once.',
  parameters: {
    type: 'object',
    properties: { mode: { type: 'string', enum: ['full', 'pointer'] }, brief: { type: 'string' } },
    required: ['mode', 'brief'],
    additionalProperties: false,
  },
};

const none = { type: 'object', properties: {}, additionalProperties: false };

/** The tools on the workspace: the built-in worker's, and an external agent's over MCP. */
export const WORKSPACE_TOOLS: ToolSpec[] = [
  { name: 'list_files', description: 'List the files of the repository, one path per line.', parameters: none },
  {
    name: 'read_file',
    description: 'Read one file of the repository.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Relative path, such as src/index.js' } },
      required: ['path'],
      additionalProperties: false,
    },
  },
  {
    name: 'write_file',
    description: 'Write one file of the repository (create it or replace its whole content).',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Relative path, such as src/index.js' }, content: { type: 'string' } },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
  { name: 'run_tests', description: "Run the repository's tests (test/*.test.js), each in a fresh process, and report each file's result.", parameters: none },
];

/**
 * The brief of the pointer arm: the statement's heading and first paragraph (its goal), and where
 * the rest is. Also what the scripted parent writes, from the statement in its request.
 */
export function pointerBrief(statement: string): string {
  const paragraphs = statement.trim().split(/\n\s*\n/);
  return [...paragraphs.slice(0, 2), `The full statement (the function, its rule and examples) is in ${TASK_FILE} at the root of the repository.`].join('\n\n');
}

/** The brief of an arm for a case: what the worker (or an external agent) is told. */
export function briefOf(c: CodingCase, mode: 'full' | 'pointer'): string {
  return mode === 'full' ? c.statement.trim() : pointerBrief(c.statement);
}

/** Messages of the parent (lead agent). */
export function parentMessages(c: CodingCase, mode: 'full' | 'pointer'): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        `${TAGS.parent} mode=${mode}] You are the lead agent of a small coding task. Delegate it to a worker, who can ` +
        `read, write and test the repository's files, by calling the task tool exactly once with mode "${mode}". ` +
        (mode === 'full'
          ? 'Write a complete brief: copy the whole task statement.'
          : `Write a short brief: the heading and the first paragraph of the statement, and that the rest is in ${TASK_FILE}.`),
    },
    { role: 'user', content: c.statement.trim() },
  ];
}

const WORK =
  'Change the files so that the task is done; the repository has no dependencies, and its tests run with ' +
  '`node --test`. When you are done, reply with one line that says what you changed.';

/** Messages that start the built-in worker. */
export function workerMessages(brief: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content: `${TAGS.worker} You are a worker on a small JavaScript repository, with the tools list_files, read_file, write_file and run_tests. ${WORK}`,
    },
    { role: 'user', content: brief },
  ];
}

/**
 * The task of an external agent (`--agent`): the repository is its working folder. The suite's
 * tools are served over MCP too (they see the files as given and as write_file left them, and
 * write_file writes into the folder); an agent with tools of its own can use those instead.
 */
export function agentMessages(c: CodingCase, mode: 'full' | 'pointer'): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        `${TAGS.agent} You work on a small JavaScript repository: your working folder holds its files. ` +
        'Use your own tools to read, edit and test them, or the tools list_files, read_file, write_file and run_tests. ' +
        WORK,
    },
    { role: 'user', content: briefOf(c, mode) },
  ];
}
