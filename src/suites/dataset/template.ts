// Prompt templates: `{{name}}` (spaces inside the braces allowed) is replaced by the case's value of
// `name`; everything else is literal, so JSON examples in a prompt need no escaping.

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}/g;

/** Names a template uses, each once, in order of first use. */
export function templateVars(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/** Names a template uses that `values` does not have. */
export function missingVars(template: string, values: Readonly<Record<string, unknown>>): string[] {
  return templateVars(template).filter((name) => !Object.hasOwn(values, name));
}

/** The template with every placeholder replaced; strings as they are, other JSON values as JSON. */
export function renderTemplate(template: string, values: Readonly<Record<string, unknown>>): string {
  return template.replace(PLACEHOLDER, (_whole, name: string) => {
    // Validation at load time makes this unreachable for a run; a direct caller still gets no silent blank.
    if (!Object.hasOwn(values, name)) throw new Error(`template variable ${name} has no value`);
    const v = values[name];
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}
