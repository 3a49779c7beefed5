// The hidden grade of a protocol-folder job, by the protocol's own rules (gradeProtocolCase): one
// check per expected key (JSON) or per listed call (Python, named check_0, check_1, … by index).
import type { CheckResult, GradeInput, GradeOutput } from 'evalog';
import { gradeProtocolCase, protocolPassed } from './protocol-grading.js';
import type { ProtocolCase } from './protocol/types.js';

/** The hidden-check ids of a protocol case, in order. */
export function protocolCheckIds(c: ProtocolCase): string[] {
  return c.kind === 'json' ? Object.keys(c.expected ?? {}) : c.checks.map((_, i) => `check_${i}`);
}

/** Hidden checks on the final revision (an invalid artifact fails every one), and revision 1's verdict. */
export async function gradeProtocolJob(c: ProtocolCase, work: GradeInput): Promise<GradeOutput> {
  const final = await gradeProtocolCase(c, work.final, 'hidden');
  const byId = new Map(final.checks.map((x) => [typeof x.check === 'number' ? `check_${x.check}` : x.check, x]));
  const checks: CheckResult[] = protocolCheckIds(c).map((id) => {
    const x = byId.get(id);
    const passed = final.valid && x?.passed === true;
    const detail = !final.valid ? `invalid artifact: ${final.error ?? 'unknown reason'}` : x === undefined ? 'not evaluated' : passed ? 'ok' : 'failed';
    return { checkId: id, visibility: 'hidden', passed, detail };
  });
  const firstRevisionPassed =
    work.first === null ? null : work.first === work.final ? protocolPassed(final) : protocolPassed(await gradeProtocolCase(c, work.first, 'hidden'));
  return { checks, firstRevisionPassed };
}
