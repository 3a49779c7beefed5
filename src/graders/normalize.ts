// Answer normalization of the `deterministic-overlap-v1` grader (A5): lowercase, split on every run
// of characters outside [0-9a-z], drop empty tokens, map the listed number words to digits.

/** Number words the grader maps to digits (A5; no others, so `eleven` stays a word). */
export const NUMBER_WORDS: Readonly<Record<string, string>> = Object.freeze({
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
  ten: '10',
  fifteen: '15',
});

/** The 126 stopwords removed before the overlap rule (`yes`, `no` and `not` are deliberately absent). */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an the this that these those all any both each few more most other some such same own i you he she it we they ' +
    'me him her us them my your his its our their mine yours hers ours theirs whose am is are was were be been being ' +
    'do does did doing have has had having will would shall should can could may might must and or but nor so yet if ' +
    'then than because while until once although though whether of in on at by for with about against between into ' +
    'through during before after above below to from up down out off over under again further what which who whom ' +
    'when where why how there here only too very just also'
  ).split(' '),
);

/** Grader tokens of a text: `normalize("70-200mm zoom lens")` is ["70", "200mm", "zoom", "lens"]. */
export function normalize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^0-9a-z]+/)
    .filter((t) => t !== '')
    .map((t) => (Object.hasOwn(NUMBER_WORDS, t) ? NUMBER_WORDS[t]! : t));
}
