// Reading a config file: YAML (.yaml, .yml) or JSON (any other name), a leading UTF-8 BOM
// accepted, a syntax error named by the file and its line.
import { readFileSync } from 'node:fs';
import { parse, YAMLParseError } from 'yaml';
import { UserError } from '../core/errors.js';
import { parseJsonText, stripBom } from '../core/text-input.js';

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
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigFileError(`cannot read config file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
  const value = parseConfigText(file, stripBom(text));
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigFileError(`config file ${file} must hold ${isYamlName(file) ? 'a YAML mapping' : 'a JSON object'}`);
  return value as Record<string, unknown>;
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
