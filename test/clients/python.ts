/**
 * The Python the client tests run (Debian's, where its packages are: rasterio, netCDF4, xarray,
 * zarr, py-ubjson, jsonschema), and the check that fails a suite, never skips it, when a module is
 * missing.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

export const PYTHON = process.env.PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

export const runPython = (args: string[], options: { maxBuffer?: number } = {}) => promisify(execFile)(PYTHON, args, { maxBuffer: 64 << 20, ...options });

/** Throws, naming the Debian packages to install, unless `statement` (imports, asserts) runs. */
export async function requirePython(statement: string, debianPackages: string): Promise<void> {
  try {
    await runPython(['-c', statement]);
  } catch (err) {
    throw new Error(`${PYTHON} cannot run "${statement}" (apt-get install -y ${debianPackages}): ${(err as Error).message}`);
  }
}
