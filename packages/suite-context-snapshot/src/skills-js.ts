// The scripted worker's own know-how for the JavaScript tasks: a template per kind of function,
// each slot filled from a fact it can see, or a plausible default when the fact is absent. A failed
// public check can change a slot, but only one that the check's own output points at.
import { lastMatch, type PublicReport, type WorkerView } from './player-view.js';

/** One JavaScript skill: recognised by the brief's wording; `repair` may flip slots after a failed public check. */
export interface JsSkill {
  marker: RegExp;
  /** The source for the view, with any slot changes made so far. */
  write(view: WorkerView, fixes: ReadonlySet<string>): string;
  /** The name of a slot to change given a failed public check, or null when the report points at nothing it can change. */
  repair(report: PublicReport, fixes: ReadonlySet<string>): string | null;
}

const says = (text: string, re: RegExp) => re.test(text);
const failed = (r: PublicReport, check: string) => r.details.find((d) => d.startsWith(`${check}: failed`)) ?? null;

const invoiceTotal: JsSkill = {
  marker: /Implement invoiceTotal\(lines\)/,
  write(view) {
    const t = view.conversation;
    const perLine = says(t, /Each line is rounded to whole cents on its own|rounded lines added up/);
    const halfAway = says(t, /half away from zero/);
    const max = lastMatch(t, /qty must be an integer from 0 to (\d+)/)?.[1];
    const error = lastMatch(t, /throws an? (\w*Error)/)?.[1] ?? 'RangeError';
    const round = halfAway ? '(x) => Math.sign(x) * Math.floor(Math.abs(x) + 0.5)' : '(x) => Math.round(x)';
    const check =
      max === undefined
        ? ''
        : `${[
            `    if (!Number.isInteger(line.qty) || line.qty < 0 || line.qty > ${max}) {`,
            `      throw new ${error}('qty must be an integer from 0 to ${max}');`,
            '    }',
          ].join('\n')}\n`;
    return [
      'function invoiceTotal(lines) {',
      `  const round = ${round};`,
      '  let total = 0;',
      '  for (const line of lines) {',
      `${check}    const amount = line.qty * line.unitPrice * (100 - line.discountPct) / 100;`,
      `    total += ${perLine ? 'round(amount)' : 'amount'};`,
      '  }',
      `  return ${perLine ? 'total' : 'round(total)'};`,
      '}',
    ].join('\n');
  },
  repair: () => null,
};

const paginate: JsSkill = {
  marker: /Implement paginate\(items, page, pageSize\)/,
  write(view, fixes) {
    const t = view.conversation;
    const stated = lastMatch(t, /\b([01])-based\b/)?.[1];
    // Array-index thinking (0-based) unless told otherwise; a failed first-page check flips it.
    let first = stated === undefined ? 0 : Number(stated);
    if (fixes.has('first-page')) first = 1 - first;
    const cap = lastMatch(t, /(?:cap(?:ped)? (?:pageSize )?(?:at|of|is)) (\d+)/i)?.[1];
    const throwsPast = lastMatch(t, /past the end (?:throws|returns)/)?.[0].endsWith('throws') ?? false;
    const effective = says(t, /pageSize in the result is the clamped value|reports the effective pageSize/);
    const size = cap === undefined ? 'pageSize' : `Math.min(pageSize, ${cap})`;
    return [
      'function paginate(items, page, pageSize) {',
      `  if (!Number.isInteger(page) || page < ${first}) {`,
      `    throw new RangeError('page must be an integer >= ${first}');`,
      '  }',
      '  if (!Number.isInteger(pageSize) || pageSize < 1) {',
      "    throw new RangeError('pageSize must be an integer >= 1');",
      '  }',
      `  const size = ${size};`,
      '  const totalPages = Math.ceil(items.length / size);',
      ...(throwsPast ? [`  if (page - ${first} >= totalPages && items.length > 0) {`, "    throw new RangeError('page past the end');", '  }'] : []),
      `  const start = (page - ${first}) * size;`,
      `  return { items: items.slice(start, start + size), page: page, pageSize: ${effective ? 'size' : 'pageSize'}, totalPages: totalPages, hasNext: page - ${first} + 1 < totalPages };`,
      '}',
    ].join('\n');
  },
  // The first-page check names the page it asked for and the items it wanted: an off-by-one base shows there.
  repair: (report, fixes) => (failed(report, 'first_page') && !fixes.has('first-page') ? 'first-page' : null),
};

const cleanEmails: JsSkill = {
  marker: /Implement cleanEmails\(addresses\)/,
  write(view, fixes) {
    const t = view.conversation;
    const policy = [...view.read.entries()].find(([name]) => t.includes(name))?.[1] ?? null;
    // The policy document is followed when the conversation says it is authoritative, else the rules as told.
    const byDocument = policy !== null && says(t, /document wins|document is authoritative/);
    const rules = byDocument ? policy : t;
    const lowerAll =
      fixes.has('lowercase') ||
      (byDocument ? says(rules, /entire address, local part and domain alike, to lower case/) : !says(rules, /do not touch the case of the local part/));
    const stripAllTags = !byDocument && says(rules, /strip the \+tag from every address/);
    const gmail = byDocument
      ? /For the domains ([\w.]+) and ([\w.]+) only: remove everything from the first "\+"[^.]*, remove every "\." from the local part, and write the domain as ([\w-]+(?:\.[\w-]+)+)/.exec(
          rules,
        )
      : null;
    const blocked = byDocument ? (/domain is exactly one of: (.+?)\. Subdomains/.exec(rules)?.[1]?.split(/,\s*/) ?? []) : [];
    return [
      'function cleanEmails(addresses) {',
      `  const blocked = ${JSON.stringify(blocked)};`,
      '  const seen = {};',
      '  const out = [];',
      '  for (const entry of addresses) {',
      "    if (typeof entry !== 'string') continue;",
      '    const trimmed = entry.trim();',
      '    if (/\\s/.test(trimmed)) continue;',
      "    const parts = trimmed.split('@');",
      '    if (parts.length !== 2) continue;',
      `    let local = ${lowerAll ? 'parts[0].toLowerCase()' : 'parts[0]'};`,
      '    let domain = parts[1].toLowerCase();',
      "    if (local === '' || domain.indexOf('.') < 0 || domain.startsWith('.') || domain.endsWith('.')) continue;",
      ...(stripAllTags ? ["    if (local.indexOf('+') >= 0) local = local.slice(0, local.indexOf('+'));"] : []),
      ...(gmail
        ? [
            `    if (domain === ${JSON.stringify(gmail[1])} || domain === ${JSON.stringify(gmail[2])}) {`,
            "      if (local.indexOf('+') >= 0) local = local.slice(0, local.indexOf('+'));",
            "      local = local.split('.').join('');",
            `      domain = ${JSON.stringify(gmail[3])};`,
            '    }',
          ]
        : []),
      "    if (local === '') continue;",
      '    if (blocked.indexOf(domain) >= 0) continue;',
      "    const clean = local + '@' + domain;",
      '    if (seen[clean] === true) continue;',
      '    seen[clean] = true;',
      '    out.push(clean);',
      '  }',
      '  return out;',
      '}',
    ].join('\n');
  },
  // The public check feeds a mixed-case address and shows the lower-case one it wanted.
  repair: (report, fixes) => (failed(report, 'basic_normalise') && !fixes.has('lowercase') ? 'lowercase' : null),
};

/** The JavaScript skills, tried in order. */
export const JS_SKILLS: readonly JsSkill[] = [invoiceTotal, paginate, cleanEmails];
