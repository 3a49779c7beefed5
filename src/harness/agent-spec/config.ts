// An agent as a config file and a run record give it: the schema of an `agents` entry, and the
// variables an agent may never be passed through.
import { z } from 'zod';
import { AgentConfigError } from './flag.js';

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Exact names an agent may never be passed: evalog sets them, or they are the endpoint's own. */
export const REFUSED_PASS_THROUGH: readonly string[] = [
  'PATH',
  'HOME',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'EVALOG_API_KEY',
  'EVALOG_BASE_URL',
];
/** Prefixes of refused names: the job contract's namespace and the OpenAI client's configuration. */
export const REFUSED_PREFIXES: readonly string[] = ['EVALOG_', 'OPENAI_'];
/** A name with one of these as a `_`-separated word (any case) looks like a credential and is refused. */
export const REFUSED_WORDS: readonly string[] = ['KEY', 'APIKEY', 'SECRET', 'SECRETS', 'TOKEN', 'TOKENS', 'PASSWORD', 'PASSWD', 'CREDENTIAL', 'CREDENTIALS'];

/**
 * Why `name` may not be passed through to an agent, or null when it may. The rule: names evalog
 * sets (PATH, HOME, EVALOG_*), the OpenAI client's variables (OPENAI_*: the agent's client is
 * configured by the job alone), and names that look like credentials (a word KEY, TOKEN, SECRET,
 * PASSWORD, ... e.g. ANTHROPIC_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY).
 */
export function passThroughRefusal(name: string): string | null {
  if (!VARIABLE_NAME.test(name)) return 'not a variable name';
  const upper = name.toUpperCase();
  if (REFUSED_PASS_THROUGH.includes(upper) || REFUSED_PREFIXES.some((p) => upper.startsWith(p))) return 'set by evalog for every job';
  if (upper.split('_').some((word) => REFUSED_WORDS.includes(word))) return 'looks like a credential';
  return null;
}

/** Refuse the first name of `names` an agent may not be given, naming the agent and the variable. */
export function checkPassThrough(names: readonly string[], agentName: string): void {
  for (const name of names) {
    const why = passThroughRefusal(name);
    if (why !== null) throw new AgentConfigError(`agent ${agentName}: env may not pass ${name} through (${why})`);
  }
}

/** An agent in a config file (`agents: { NAME: {...} }`); `cwd` is left for the config layer to resolve. */
export const AgentConfig = z
  .object({
    command: z.array(z.string().min(1)).min(1),
    cwd: z.string().min(1).optional(),
    env: z
      .array(
        z.string().superRefine((name, ctx) => {
          const why = passThroughRefusal(name);
          if (why !== null) ctx.addIssue({ code: 'custom', message: `${name} may not be passed through (${why})` });
        }),
      )
      .optional(),
    limits: z
      .object({
        modelCalls: z.number().int().positive().optional(),
        tokens: z.number().int().positive().nullable().optional(),
        timeLimitMs: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
/** An agent as a config file gives it. */
export type AgentConfig = z.infer<typeof AgentConfig>;
