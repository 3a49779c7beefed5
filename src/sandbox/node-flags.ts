// Command-line flags of the sandbox process. The permission model took its stable name in
// Node 22.13 / 23.5; Node 20 only knows the experimental one.

/** The flag that turns the permission model on for the given Node version (default: this one). */
export function permissionFlag(version: string = process.versions.node): '--permission' | '--experimental-permission' {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  const stable = major >= 24 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13);
  return stable ? '--permission' : '--experimental-permission';
}

/**
 * The sandbox process's arguments. No `--allow-*` flag: no file may be read or written (the
 * program comes with `-e`), and no child process, worker, addon or WASI may start. The
 * permission model does not cover sockets in Node 20-24: the vm context, which holds no host
 * object, is what keeps the artifact away from them.
 */
export function childArgs(program: string, memoryMb: number): string[] {
  return [
    permissionFlag(),
    '--disallow-code-generation-from-strings', // the host realm of the child cannot eval either
    '--frozen-intrinsics', // nor can its built-ins be polluted, should a host object ever leak
    '--disable-proto=delete', // no __proto__ accessor in any realm of the process
    `--max-old-space-size=${memoryMb}`,
    '--no-addons',
    '--no-warnings', // the permission model's ExperimentalWarning would only clutter stderr
    '--input-type=commonjs',
    '-e',
    program,
  ];
}
