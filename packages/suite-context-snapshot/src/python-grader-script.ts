// The Python side of evalog's grader for Python artifacts (run by python-grader.ts through
// src/sandbox's runPythonLimited, which sets the CPU limit before it). It applies the published context-snapshot protocol's rules,
// re-stated here in evalog's own code: a syntax screen, a short list of builtins, inputs copied
// and compared after each call, exceptions matched by class name. Equality is Python's own `==`
// (so 1 == 1.0 == True), which is why the comparison happens here and not in TypeScript.
// This is NOT an operating-system sandbox: nothing limits memory, and the screen is a filter for
// well-meaning model output, not a wall against hostile code.
//
// stdin: {"code": str, "function": str, "checks": [{"args": [...], "want"?: any, "raises"?: str}]}
// stdout: {"valid": bool, "error": str | null, "checks": [{"check": int, "passed": bool, ...}]}

/** Syntax the screen rejects anywhere in an artifact (the ast class names). */
export const PYTHON_BANNED_NODES = ['Import', 'ImportFrom', 'ClassDef', 'Global', 'Nonlocal', 'With', 'AsyncWith'] as const;

/** Names an artifact may not mention; besides these, any name containing `__` but `__name__`. */
export const PYTHON_BANNED_NAMES = [
  'open',
  'eval',
  'exec',
  'compile',
  'globals',
  'locals',
  'getattr',
  'setattr',
  'delattr',
  'object',
  'input',
  'help',
  'breakpoint',
] as const;

/** The only builtins an artifact's module sees. */
export const PYTHON_ALLOWED_BUILTINS = [
  'len',
  'range',
  'enumerate',
  'zip',
  'sorted',
  'reversed',
  'sum',
  'min',
  'max',
  'abs',
  'all',
  'any',
  'round',
  'divmod',
  'int',
  'float',
  'str',
  'bool',
  'bytes',
  'bytearray',
  'list',
  'dict',
  'tuple',
  'set',
  'type',
  'isinstance',
  'ValueError',
  'TypeError',
  'Exception',
  'AssertionError',
  'AttributeError',
  'IndexError',
  'KeyError',
  'LookupError',
  'OverflowError',
] as const;

const pyTuple = (names: readonly string[]): string => `(${names.map((n) => JSON.stringify(n)).join(', ')},)`;

/** The script. The lists above are spliced in, so the TypeScript constants are the one source. */
export const PYTHON_GRADER_SCRIPT = `
import ast
import builtins
import copy
import json
import math
import sys

REJECTED_SYNTAX = tuple(getattr(ast, name) for name in ${pyTuple(PYTHON_BANNED_NODES)})
REJECTED_NAMES = frozenset(${pyTuple(PYTHON_BANNED_NAMES)})
BUILTIN_NAMES = ${pyTuple(PYTHON_ALLOWED_BUILTINS)}


def screen(tree):
    """Refuse the artifact (ValueError) at the first construct the rules forbid."""
    for node in ast.walk(tree):
        where = getattr(node, "lineno", "?")
        if isinstance(node, REJECTED_SYNTAX):
            raise ValueError(f"line {where}: {type(node).__name__} is not allowed in an artifact (no imports, classes, global/nonlocal or with)")
        if isinstance(node, ast.Name):
            if node.id in REJECTED_NAMES or ("__" in node.id and node.id != "__name__"):
                raise ValueError(f"line {where}: the name {node.id!r} is not allowed in an artifact")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise ValueError(f"line {where}: the attribute {node.attr!r} is not allowed (no attribute may start with an underscore)")


def load(code, function):
    tree = ast.parse(code, filename="artifact.py")
    screen(tree)
    scope = {
        "__builtins__": {name: getattr(builtins, name) for name in BUILTIN_NAMES},
        "__name__": "synthetic_artifact",
    }
    exec(compile(tree, "artifact.py", "exec"), scope)
    if function not in scope:
        raise NameError(f"the artifact defines no {function!r}")
    return scope[function]


def run_checks(fn, checks):
    rows = []
    for number, check in enumerate(checks):
        args = copy.deepcopy(check["args"])
        pristine = copy.deepcopy(args)
        try:
            actual = fn(*args)
            mutated = args != pristine
            ok = "raises" not in check and actual == check.get("want") and not mutated
            rows.append({"check": number, "passed": ok, "actual": actual, "mutated_input": mutated})
        except Exception as exc:
            name = type(exc).__name__
            rows.append({"check": number, "passed": name == check.get("raises") and args == pristine, "exception": name})
    return rows


def portable(value):
    """JSON that JavaScript can read: NaN and the infinities become their repr."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {portable(k) if isinstance(k, float) else k: portable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [portable(v) for v in value]
    return value


def failure(exc):
    return {"valid": False, "error": f"{type(exc).__name__}: {exc}", "checks": []}


def main():
    payload = json.load(sys.stdin)
    try:
        fn = load(payload["code"], payload["function"])
        report = {"valid": True, "error": None, "checks": run_checks(fn, payload["checks"])}
    except Exception as exc:
        report = failure(exc)
    try:
        text = json.dumps(portable(report), allow_nan=False)
    except Exception as exc:
        # A return value that is not JSON (a set, a function, a cycle) leaves no readable report:
        # the whole grade is invalid, as in the published grader.
        text = json.dumps(failure(exc))
    sys.stdout.write(text)


main()
`;
