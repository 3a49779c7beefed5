// Reading a config file: YAML (.yaml, .yml) or JSON (any other name), a leading UTF-8 BOM
// accepted, a syntax error named by the file and its line.
import { readFileSync } from 'node:fs';
import { isMap, isSeq, parse, parseDocument, YAMLParseError } from 'yaml';
import { UserError } from '../../core/errors.js';
import { lineColumnOf, parseJsonText, stripBom } from '../../core/text-input.js';

/** A config file that cannot be read or parsed; the message names the file (and the line). */
export class ConfigFileError extends UserError {
  override name = 'ConfigFileError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Whether a config file's name says YAML; every other name is read as JSON. */
export const isYamlName = (file: string): boolean => /\.ya?ml$/i.test(file);

/** A config file's object (YAML or JSON by its name). Throws ConfigFileError naming the file and line. */
export function readConfigFile(file: string): Record<string, unknown> {
  return readConfigFileLines(file).data;
}

/** A read config file: its object, and the line of a key path in it (null when the file does not set it). */
export interface ConfigFileText {
  data: Record<string, unknown>;
  lineOf(path: readonly (string | number)[]): number | null;
}

/** Reads a config file like `readConfigFile`, keeping where each key is, so a schema error can name its line. */
export function readConfigFileLines(file: string): ConfigFileText {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigFileError(`cannot read config file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
  text = stripBom(text);
  const value = parseConfigText(file, text);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigFileError(`config file ${file} must hold ${isYamlName(file) ? 'a YAML mapping' : 'a JSON object'}`);
  return { data: value as Record<string, unknown>, lineOf: (path) => keyLine(text, path) };
}

/**
 * The line of the last key of `path` in a YAML or JSON text (JSON read as YAML, its superset,
 * for positions only; the values came from JSON.parse). Null when the text does not hold the path.
 */
function keyLine(text: string, path: readonly (string | number)[]): number | null {
  if (path.length === 0) return null;
  let node: unknown = parseDocument(text, { uniqueKeys: false }).contents;
  let start: number | null = null;
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === key);
      if (!pair) return null;
      start = (pair.key as { range?: [number, number, number] }).range?.[0] ?? null;
      node = pair.value;
    } else if (isSeq(node) && typeof key === 'number') {
      const item = node.items[key] as { range?: [number, number, number] } | undefined;
      if (!item) return null;
      start = item.range?.[0] ?? null;
      node = item;
    } else return null;
  }
  return start === null ? null : lineColumnOf(text, start).line;
}

function parseConfigText(file: string, text: string): unknown {
  if (!isYamlName(file)) {
    const parsed = parseJsonText(text);
    if (parsed.ok) return parsed.value;
    throw new ConfigFileError(`config file ${file} is not valid JSON at line ${parsed.at.line} column ${parsed.at.column}: ${parsed.at.detail}`);
  }
  try {
    // YAML 1.2 core schema (yes/no stay strings), duplicate keys refused.
    return parse(text, { uniqueKeys: true });
  } catch (err) {
    if (!(err instanceof YAMLParseError)) throw err;
    const at = err.linePos?.[0];
    const where = at ? ` at line ${at.line} column ${at.col}` : '';
    const detail = err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new ConfigFileError(`config file ${file} is not valid YAML${where}: ${detail}`, { cause: err });
  }
}
