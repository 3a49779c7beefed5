/** A suite-supplied help text as lines of a command's help: each ends in a newline; none when the text is empty. */
export function helpLines(text: string): string {
  return text === '' ? '' : `${text}\n`;
}
