// evalog's own Python loader for the protocol's .py files. cases.py and prompts.py are Python (a
// dataclass list, string constants built from expressions), so only Python can read them faithfully.
// The loader runs exactly the one file it is given (the bytes evalog hashed, passed on stdin) as a
// module of a private name, with the file's folder off sys.path: the file cannot import its siblings
// (runner.py, grading.py, ...) and no other code of the user's copy runs. It prints one JSON line;
// the TS side validates every field of it.
import { runPythonSync } from 'evalog';

/** What the loader reads from a file: the CASES list, or the three prompt constants. */
export type LoaderTarget = 'cases' | 'prompts';

/** The loader's answer: the raw values (still to be validated), or the import's error line. */
export type LoaderOutcome = { ok: true; value: unknown; invalid?: Record<string, string> } | { ok: false; error: string };

/** The printed line starts with this, so output the imported file prints itself cannot pass for it. */
const MARK = '@@evalog-protocol-loader@@';

const SCRIPT = String.raw`
import base64, dataclasses, importlib.util, json, os, sys, traceback

MARK = ${JSON.stringify(MARK)}
path, target = sys.argv[1], sys.argv[2]
# -I already keeps the script's folder and the cwd off sys.path on 3.11+; older versions put '' first.
sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd(), os.path.dirname(os.path.abspath(path)))]
out = sys.stdout


def answer(obj):
    out.write("\n" + MARK + json.dumps(obj, allow_nan=False) + "\n")
    out.flush()
    sys.exit(0)


def last_line(exc):
    lines = [l.strip() for l in traceback.format_exception_only(type(exc), exc) if l.strip()]
    text = lines[-1] if lines else type(exc).__name__
    if isinstance(exc, SyntaxError) and exc.lineno is not None:
        text += " (line %d)" % exc.lineno
    return text


name = "_evalog_protocol_" + target
try:
    # The bytes run are the bytes evalog hashed (given on stdin), not a second read of the file.
    source = base64.b64decode(sys.stdin.buffer.read())
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    # Registered so dataclasses can resolve the module of its classes; never on sys.path.
    sys.modules[name] = module
    code = compile(source, path, "exec")
    sys.stdout = sys.stderr  # what the file prints must not mix with the answer
    exec(code, module.__dict__)
    sys.stdout = out
except BaseException as exc:
    sys.stdout = out
    answer({"ok": False, "error": "importing it failed: " + last_line(exc)})


def unrepresentable(value):
    """Why value cannot be printed as JSON, or None."""
    try:
        json.dumps(value, allow_nan=False)
        return None
    except (TypeError, ValueError) as exc:
        return "not representable as JSON (%s)" % exc


if target == "cases":
    if not hasattr(module, "CASES"):
        answer({"ok": False, "error": "it defines no CASES"})
    cases = module.CASES
    if not isinstance(cases, (list, tuple)):
        answer({"ok": False, "error": "CASES is a %s, not a list" % type(cases).__name__})
    result = []
    for case in cases:
        if not dataclasses.is_dataclass(case) or isinstance(case, type):
            result.append({"$invalid": {"field": "(case)", "detail": "not a dataclass instance but a %s" % type(case).__name__}})
            continue
        try:
            fields = dataclasses.asdict(case)
        except Exception as exc:
            result.append({"$invalid": {"field": "(case)", "detail": "cannot be read: " + last_line(exc)}})
            continue
        history = fields.get("history")
        if isinstance(history, (list, tuple)):
            fields["history"] = [
                {"role": e[0], "content": e[1]} if isinstance(e, (list, tuple)) and len(e) == 2 else e for e in history
            ]
        bad = [(k, unrepresentable(v)) for k, v in fields.items() if unrepresentable(v) is not None]
        if bad:
            result.append({"name": fields.get("name"), "$invalid": {"field": bad[0][0], "detail": bad[0][1]}})
        else:
            result.append(fields)
    answer({"ok": True, "value": result})
else:
    value, invalid = {}, {}
    for const in ("WORKER_SYSTEM", "LEAD_SYSTEM", "DISPATCH_POLICIES"):
        if hasattr(module, const):
            why = unrepresentable(getattr(module, const))
            if why is None:
                value[const] = getattr(module, const)
            else:
                invalid[const] = why
    answer({"ok": True, "value": value, "invalid": invalid})
`;

/** A deadline for importing a file that only defines data; a file that loops is reported, not waited for. */
const LOAD_TIMEOUT_MS = 30_000;

/**
 * Runs `source` (the bytes of `file`, an absolute path, as hashed) as that file's module in python3
 * and returns what it defines. Throws PythonUnavailableError when python3 cannot run; any other
 * failure is an outcome with its line.
 */
export function runProtocolLoader(file: string, source: Uint8Array, target: LoaderTarget, timeoutMs = LOAD_TIMEOUT_MS): LoaderOutcome {
  const r = runPythonSync({ script: SCRIPT, args: [file, target], input: Buffer.from(source).toString('base64'), timeoutMs });
  if (r.timedOut) return { ok: false, error: `importing it did not finish within ${timeoutMs / 1000} s` };
  const line = r.stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith(MARK));
  if (line === undefined) {
    const why = r.stderr.trim().split('\n').pop()?.trim();
    return { ok: false, error: `the loader gave no answer (exit ${r.code ?? r.signal}${why ? `: ${why}` : ''})` };
  }
  const parsed = JSON.parse(line.slice(MARK.length)) as LoaderOutcome;
  return parsed;
}
