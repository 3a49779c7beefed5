import { lastMessageText, type Player } from '../../providers/scripted/index.js';

/** A line the scripted model echoes: `Reply with exactly: X` is answered `X` (cheap exact-match passes for benchmarks). */
const ECHO = /^.*Reply with exactly: (.*)$/m;

// Answers to the questions of examples/qa.jsonl, matched as substrings of the last message. Some
// are wrong on purpose (Sydney, miles, [1, 2, 3], 8, INSUFFICIENT, "Blue.") so pass rates mean something.
const TABLE: readonly (readonly [string, string])[] = [
  ['capital of France', 'Paris'],
  ['capital of Australia', 'Sydney'],
  ['largest in the solar system', 'Jupiter is the largest planet.'],
  ['does water boil at sea level', 'Water boils at 100 degrees Celsius at sea level.'],
  ['speed of light', 'About 186,000 miles per second.'],
  ['Who wrote Hamlet', 'Shakespeare'],
  ['Apollo 11 land', 'Apollo 11 landed in 1969.'],
  ['city and country for the capital of Japan', '{"city": "Tokyo", "country": "Japan"}'],
  ['for the planet Mars', '```json\n{"name": "Mars", "moons": 2}\n```'],
  ['first three prime numbers', '{"primes": [1, 2, 3]}'],
  ['chemical formula of water', 'H2O'],
  ['square root of 144', '12'],
  ['17 times 23', '391'],
  ['144 divided by 16', '8'],
  ['during photosynthesis', 'They release oxygen.'],
  ['first cat to visit the Moon', 'INSUFFICIENT'],
  ['into Spanish', 'Hola.'],
  ['What is 2 + 2', '4'],
  ['clear daytime sky', 'Blue.'],
];

/**
 * Scripted answerer of the dataset suite (labelled scripted like every scripted result): echoes
 * `Reply with exactly: X`, answers the example questions from a fixed table, and leaves anything
 * else to the built-in fallback reply (deterministic, and wrong for any real expected answer).
 */
export const datasetPlayer: Player = (request) => {
  const last = request.messages.at(-1);
  if (last?.role !== 'user') return null;
  const text = lastMessageText(request);
  const echo = ECHO.exec(text);
  if (echo) return { content: echo[1]!.trim() };
  const hit = TABLE.find(([q]) => text.includes(q));
  return hit ? { content: hit[1] } : null;
};
