// promptfoo's templates are Nunjucks. evalog reads the part nearly every config uses: `{{name}}` and
// `{{ name }}`, a variable put in as it is. Tags (`{% if %}`), comments (`{# #}`), filters
// (`{{ x | upper }}`) and expressions (`{{ a.b }}`, `{{ x + 1 }}`) are refused by name up front:
// rendering them some other way than Nunjucks does would send prompts the config does not mean.
import { refuse, type Where } from './errors.js';

const OPEN = /\{\{([\s\S]*?)\}\}/g;
const NAME = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$/;

/** Checks a template; returns the variable names it uses, each once, in order of first use. */
export function templateNames(where: Where, text: string): string[] {
  const tag = /\{%\s*([A-Za-z_]*)/.exec(text);
  if (tag) throw refuse(where, `the Nunjucks tag {% ${tag[1] || '…'} %} is not supported (only {{ variable }} placeholders are)`);
  if (text.includes('{#')) throw refuse(where, 'Nunjucks comments {# … #} are not supported (only {{ variable }} placeholders are)');
  const names: string[] = [];
  for (const m of text.matchAll(OPEN)) {
    const inner = m[1]!;
    const name = NAME.exec(inner);
    if (name) {
      if (!names.includes(name[1]!)) names.push(name[1]!);
      continue;
    }
    if (inner.includes('|')) {
      const filter = /\|\s*([A-Za-z_][A-Za-z0-9_]*)?/.exec(inner)?.[1] ?? '…';
      throw refuse(where, `the Nunjucks filter "${filter}" in {{${inner}}} is not supported (only {{ variable }} placeholders are)`);
    }
    const what = /^\s*[A-Za-z_][A-Za-z0-9_]*\s*(\.|\[)/.test(inner) ? 'attribute access' : 'expression';
    throw refuse(where, `the Nunjucks ${what} {{${inner}}} is not supported (only {{ variable }} placeholders are)`);
  }
  return names;
}

/** The template with each placeholder replaced by its value: a string as it is, anything else as JSON. */
export function renderWith(where: Where, text: string, vars: Readonly<Record<string, unknown>>, whose: string): string {
  templateNames(where, text);
  return text.replace(OPEN, (_whole, inner: string) => {
    const name = NAME.exec(inner)![1]!;
    if (!Object.hasOwn(vars, name)) throw refuse(where, `uses {{${name}}}, which the vars of ${whose} do not give`);
    const v = vars[name];
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}
