// The scripted worker's own know-how for the JSON tasks: how to fill each key from facts it can
// see (its conversation and the documents it read). A fact it cannot find leaves the key out of the
// first revision; if the public check then reports the key missing, it adds its default guess.
import { briefKeys, lastMatch, statedValue, type WorkerView } from './player-view.js';

/** A JSON artifact in the making: the values found, and the guesses for keys whose facts are absent. */
export interface JsonDraft {
  kind: 'json';
  keys: string[];
  found: Record<string, unknown>;
  guesses: Record<string, unknown>;
}

/** One JSON skill: recognised by the brief's wording, filled from the view. */
export interface JsonSkill {
  marker: RegExp;
  draft(view: WorkerView): JsonDraft;
}

const isArray = (v: unknown) => Array.isArray(v);
const isNumber = (v: unknown) => typeof v === 'number';
const isString = (v: unknown) => typeof v === 'string';
const isBool = (v: unknown) => typeof v === 'boolean';

function draftOf(view: WorkerView, found: Record<string, unknown>, guesses: Record<string, unknown>): JsonDraft {
  const keys = briefKeys(view.conversation);
  const kept = Object.fromEntries(keys.filter((k) => found[k] !== undefined).map((k) => [k, found[k]]));
  return { kind: 'json', keys, found: kept, guesses };
}

const rateLimits: JsonSkill = {
  marker: /rate-limit configuration/,
  draft(view) {
    const t = view.conversation;
    const found: Record<string, unknown> = {
      limit: statedValue(t, ['limit'], isNumber),
      window_seconds: statedValue(t, ['window_seconds'], isNumber),
      burst: statedValue(t, ['burst'], isNumber),
      key_by: statedValue(t, ['key_by'], isString),
      exempt_paths: statedValue(t, ['exempt_paths'], isArray),
      retry_after_header: statedValue(t, ['retry_after_header'], isBool),
      status_code: statedValue(t, ['status_code'], isNumber),
    };
    // A cap stated as a share of the limit is applied to whatever burst was agreed.
    const cap = lastMatch(t, /burst can never exceed (\d+)% of the (?:window )?limit/);
    if (cap && isNumber(found.limit) && isNumber(found.burst)) {
      found.burst = Math.min(found.burst as number, Math.floor(((found.limit as number) * Number(cap[1])) / 100));
    }
    return draftOf(view, found, {
      limit: 100,
      window_seconds: 60,
      burst: 10,
      key_by: 'ip',
      exempt_paths: ['/health'],
      retry_after_header: false,
      status_code: 429,
    });
  },
};

const DAY_MS = 86_400_000;
const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const releasePlan: JsonSkill = {
  marker: /plan for the next \w+ release/,
  draft(view) {
    const t = view.conversation;
    const found: Record<string, unknown> = {};
    const draftVersion = lastMatch(t, /call it (\d+\.\d+\.\d+)/)?.[1];
    const prod = lastMatch(t, /Production runs (\d+)\.(\d+)\.(\d+)/);
    const listed =
      lastMatch(t, /Features: ([^.]+)\./)?.[1]
        ?.split(/,\s*(?:and\s+)?|\s+and\s+/)
        .map((f) => f.trim()) ?? [];
    const dropped = new Set([...t.matchAll(/(\S+) failed its [^.]*review\. It does not ship|Removed (\S+?)[;.]/g)].map((m) => m[1] ?? m[2]));
    let features = listed.filter((f) => !dropped.has(f));
    if (/alphabetical/i.test(t)) features = [...features].sort();
    if (features.length > 0) found.features = features;
    if (prod && /adds a feature is a minor bump/.test(t) && features.length > 0) found.version = `${prod[1]}.${Number(prod[2]) + 1}.0`;
    else if (draftVersion) found.version = draftVersion;
    found.release_manager = lastMatch(
      t,
      /\b([A-Z][a-z]+) manages it/,
      /release[ _]manager:? (?:is )?([A-Z][a-z]+)/,
      /([A-Z][a-z]+) is the release manager/,
    )?.[1];
    found.rollout_percentages = statedValue(t, ['rollout_percentages', 'rollout'], isArray);
    if (/needs a database migration|includes a schema change/.test(t)) found.requires_migration = true;

    const start = lastMatch(t, /release on \w+ (\d{4}-\d{2}-\d{2})/)?.[1];
    if (start) {
      const embargo = lastMatch(t, /embargoed until \w+ (\d{4}-\d{2}-\d{2})/, /cannot be earlier than (\d{4}-\d{2}-\d{2})/)?.[1];
      const tuesdays = /only ever release on a Tuesday/.test(t);
      const away = /must be present on release day/.test(t)
        ? [...t.matchAll(/from (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2}) inclusive/g)].map((m) => [day(m[1]!), day(m[2]!)] as const)
        : [];
      let d = Math.max(day(start), embargo ? day(embargo) : 0);
      while ((tuesdays && new Date(d).getUTCDay() !== 2) || away.some(([a, b]) => d >= a && d <= b)) d += DAY_MS;
      found.release_date = iso(d);
      const freeze = lastMatch(t, /freeze is exactly (\d+) days before/);
      if (freeze) found.freeze_date = iso(d - Number(freeze[1]) * DAY_MS);
    }
    const release = (found.release_date as string | undefined) ?? '2026-10-06';
    return draftOf(view, found, {
      version: draftVersion ?? '2.7.4',
      release_date: release,
      freeze_date: iso(day(release) - 14 * DAY_MS),
      release_manager: 'Marco',
      rollout_percentages: [10, 50, 100],
      features: listed,
      requires_migration: false,
    });
  },
};

const CLASS = '(public|internal|confidential|restricted)';
// A class as someone states it ("data class X", "assume X", "use X"), not any use of the word ("public checks").
const CLASS_STATED = [new RegExp(String.raw`\bdata class ${CLASS}\b`), new RegExp(String.raw`\b(?:assume|say|use|makes the dataset) ${CLASS}\b`)];

const storagePolicy: JsonSkill = {
  marker: /storage settings for the [\w-]+ dataset/,
  draft(view) {
    const t = view.conversation;
    const stated = lastMatch(t, ...CLASS_STATED)?.[1];
    const dataClass = stated ?? 'internal';
    const personal = /\bcontains personal data|\bit contains personal data/.test(t);
    const found: Record<string, unknown> = { data_class: stated };
    const docs = [...view.read.values()];
    const table = docs.map((d) => policyTable(d, dataClass)).find((r) => r !== null) ?? null;
    if (table) Object.assign(found, table);
    for (const doc of docs) {
      // An amendment's section for this class (and personal data, if it says so) sets "- key: value" lines.
      for (const m of doc.matchAll(/^[A-Z]\. ([A-Z][a-z]+) datasets that contain personal data[^\n]*\n((?:\s+- \w+: \S+\n?)+)/gm)) {
        if (m[1]!.toLowerCase() === dataClass && personal)
          for (const [, k, v] of m[2]!.matchAll(/- (\w+): (\S+)/g)) found[k!] = /^\d+$/.test(v!) ? Number(v) : v;
      }
      const backups = /For every data class except (\w+), backup_copies is one more than in the base table/.exec(doc);
      if (backups && backups[1] !== dataClass && typeof found.backup_copies === 'number') found.backup_copies = (found.backup_copies as number) + 1;
      const renamed = /storage tier "(\w+)" is renamed "(\w+)"/.exec(doc);
      if (renamed && found.storage_tier === renamed[1]) found.storage_tier = renamed[2];
      const restricted = /Restricted datasets: retention_days becomes (\d+)/.exec(doc);
      if (restricted && dataClass === 'restricted') found.retention_days = Number(restricted[1]);
    }
    return draftOf(view, found, {
      data_class: dataClass,
      retention_days: 365,
      storage_tier: 'standard',
      encryption: 'aes-256',
      region: 'eu-west-1',
      backup_copies: 2,
      deletion_method: 'standard-delete',
    });
  },
};

// The row of a `class | key | key…` table for one class, numbers as numbers.
function policyTable(doc: string, dataClass: string): Record<string, unknown> | null {
  const lines = doc.split('\n').map((l) => l.trim());
  const head = lines.find((l) => l.startsWith('class') && l.includes('|'));
  const row = lines.find((l) => l.split('|')[0]!.trim() === dataClass);
  if (!head || !row) return null;
  const names = head.split('|').map((c) => c.trim());
  const cells = row.split('|').map((c) => c.trim());
  return Object.fromEntries(names.slice(1).map((n, i) => [n, /^\d+$/.test(cells[i + 1] ?? '') ? Number(cells[i + 1]) : cells[i + 1]]));
}

const freshEvidence: JsonSkill = {
  marker: /current CI status of the release candidate/,
  draft(view) {
    const t = view.conversation;
    const named = lastMatch(t, /\b(ci-run-\d+)\b/)?.[1];
    const report = named ? view.read.get(named) : undefined;
    const found: Record<string, unknown> = {};
    if (named && report) {
      found.build = Number(/^build: (\d+)/m.exec(report)?.[1]);
      found.passed_tests = Number(/(\d+) passed/.exec(report)?.[1]);
      const failures = /^failures[^\n]*\n((?:[ \t]+\S+:[^\n]*\n?)*)/m.exec(report)?.[1] ?? '';
      found.failing_tests = [...failures.matchAll(/^\s+(\S+):/gm)].map((m) => m[1]!).sort();
      found.status = (found.failing_tests as string[]).length === 0 ? 'PASS' : 'FAIL';
      found.evidence_document = named;
    } else {
      // Without a named report, the only evidence in sight is a pasted receipt.
      const receipt = lastMatch(t, /build: (\d+)[\s\S]*?result: (PASS|FAIL), (\d+) passed, (\d+) failed/);
      if (receipt) Object.assign(found, { build: Number(receipt[1]), status: receipt[2], passed_tests: Number(receipt[3]), failing_tests: [] });
    }
    return draftOf(view, found, { evidence_document: 'CI RECEIPT', failing_tests: [], status: 'PASS', build: 0, passed_tests: 0 });
  },
};

const shelfWeights: JsonSkill = {
  marker: /boxes on the loading shelf weigh/,
  draft(view) {
    const m = lastMatch(view.conversation, /weigh ([\d, and]+) kg/);
    const w = m ? [...m[1]!.matchAll(/\d+/g)].map((x) => Number(x[0])) : [];
    const found =
      w.length === 0
        ? {}
        : {
            total_kg: w.reduce((a, b) => a + b, 0),
            heaviest_kg: Math.max(...w),
            lightest_kg: Math.min(...w),
            count_over_10: w.filter((x) => x > 10).length,
          };
    return draftOf(view, found, { total_kg: 0, heaviest_kg: 0, lightest_kg: 0, count_over_10: 0 });
  },
};

/** The JSON skills, tried in order. */
export const JSON_SKILLS: readonly JsonSkill[] = [rateLimits, releasePlan, storagePolicy, freshEvidence, shelfWeights];

/** The artifact text of a draft: the found keys, plus guesses for the keys named here (in the brief's order). */
export function jsonArtifact(d: JsonDraft, guessed: ReadonlySet<string> = new Set()): string {
  const out: Record<string, unknown> = {};
  for (const k of d.keys) {
    if (d.found[k] !== undefined) out[k] = d.found[k];
    else if (guessed.has(k)) out[k] = d.guesses[k] ?? null;
  }
  return JSON.stringify(out, null, 2);
}
