// Python's str.strip() with no argument, so "the prompt is the brief" means what it means in the
// published runner: the characters it strips are those str.isspace() calls whitespace, which are
// not quite JavaScript's trim() set (Python adds \x1c-\x1f and \x85; JavaScript adds \uFEFF).
const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const EDGES = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');

/** `text.strip()` as Python does it. */
export function pyStrip(text: string): string {
  return text.replace(EDGES, '');
}
