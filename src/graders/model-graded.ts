// The model-graded check: an LLM judge asked, through the harness's judge port, whether an output
// meets a rubric. The judge sees the rubric, the case input, the expected value and the output,
// never the arm, and must answer in one strict format; anything else is a grading error, never a pass.
import { canonicalJson } from '../core/canonical.js';
import type { ChatMessage } from '../providers/chat.js';
import { preview } from '../sandbox/json-equal.js';
import { unfence } from './kit.js';
import type { JudgedScorer, JudgePort, JudgeSample, Verdict } from './types.js';

/** Names the judge prompt format; the scripted judge recognises a judge request by it. */
export const JUDGE_FORMAT = 'evalog-judge-v1';

/** The check id a model-graded check records (unless it is given another name). */
export const MODEL_CHECK_ID = 'model';

/** A judge's verdict as it must write it: `{"verdict": "pass" | "fail", "reason": "..."}` and nothing else. */
export interface JudgeVerdict {
  verdict: 'pass' | 'fail';
  reason: string;
}

/** A model-graded check: its rubric, the judge model (null = the run's endpoint model) and how it grades. */
export interface ModelGrader extends JudgedScorer {
  /** The check id: `model`, a preset's own (`closed-qa`, `factuality`), or the one given. */
  readonly name: string;
  readonly rubric: string;
  readonly model: string | null;
  /** The judge request of one sample (a pure function: replay sends byte-identical requests). */
  request(sample: JudgeSample): { messages: ChatMessage[]; model?: string };
  /** Asks the judge through `port` and parses its reply; a failed call or malformed reply is an `error` verdict. */
  grade(port: JudgePort, sample: JudgeSample): Promise<Verdict>;
}

/**
 * A rubric-driven LLM judge. `model` overrides the run's endpoint model for the judge's calls; `name`
 * the check id (default `model`). Any `expected` suits it, none too (the judge is told none was given).
 */
export function modelGraded(options: { rubric: string; model?: string; name?: string }): ModelGrader {
  const rubric = options.rubric.trim();
  if (rubric === '') throw new TypeError('modelGraded: the rubric is empty');
  const name = options.name ?? MODEL_CHECK_ID;
  if (name.trim() === '') throw new TypeError('modelGraded: the name is empty');
  const model = options.model ?? null;
  const request = (sample: JudgeSample) => {
    const messages = judgeMessages(rubric, sample);
    return model === null ? { messages } : { messages, model };
  };
  return {
    name,
    rubric,
    model,
    problem: () => null,
    request,
    async grade(port, sample) {
      const reply = await port.call(request(sample));
      if (!reply.ok) return gradingError(`the judge call failed: ${reply.message}`);
      const parsed = parseVerdict(reply.content);
      if (typeof parsed === 'string') return gradingError(`malformed verdict (${parsed}): ${preview(reply.content ?? '')}`);
      return { passed: parsed.verdict === 'pass', detail: `judge: ${parsed.verdict}: ${parsed.reason}` };
    },
  };
}

function gradingError(why: string): Verdict {
  return { passed: false, detail: `grading error: ${why}`, error: true };
}

/**
 * Parses a judge reply strictly: one JSON object (a ``` fence allowed) with exactly the keys
 * `verdict` ("pass" or "fail") and `reason` (a non-empty string). A string result says what is wrong.
 */
export function parseVerdict(content: string | null): JudgeVerdict | string {
  if (content === null || content.trim() === '') return 'empty reply';
  let v: unknown;
  try {
    v = JSON.parse(unfence(content.trim()));
  } catch {
    return 'not JSON';
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'not a JSON object';
  const o = v as Record<string, unknown>;
  const extra = Object.keys(o)
    .filter((k) => k !== 'verdict' && k !== 'reason')
    .sort();
  if (extra.length > 0) return `unexpected key ${extra.map((k) => JSON.stringify(k)).join(', ')}`;
  if (o.verdict !== 'pass' && o.verdict !== 'fail') return 'verdict is not "pass" or "fail"';
  if (typeof o.reason !== 'string' || o.reason.trim() === '') return 'reason is not a non-empty string';
  return { verdict: o.verdict, reason: o.reason.trim() };
}

/** The judge's messages: instructions in the system message, then the rubric and the sample in tagged blocks. */
export function judgeMessages(rubric: string, sample: JudgeSample): ChatMessage[] {
  const expected =
    sample.expected === null || sample.expected === undefined ? null : typeof sample.expected === 'string' ? sample.expected : canonicalJson(sample.expected);
  const system = [
    `You grade one output of an evaluation (${JUDGE_FORMAT}).`,
    'Decide only from the rubric, the case input, the expected value (when one is given) and the output below.',
    'Answer with one JSON object and nothing else: {"verdict": "pass" or "fail", "reason": "one short sentence"}.',
  ].join('\n');
  const user = [
    block('rubric', rubric),
    block('input', sample.input),
    expected === null ? '<expected>(none given)</expected>' : block('expected', expected),
    block('output', sample.output),
  ].join('\n\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

function block(tag: string, text: string): string {
  return `<${tag}>\n${text}\n</${tag}>`;
}
