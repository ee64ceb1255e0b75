/**
 * Finds a collection's parquet files without ever leaving the lake root: the id must be a
 * plain name, the prefix is resolved and checked, and symlinks are followed only when their
 * target stays inside the (real) root, so a link planted in the lake cannot expose other files.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Same charset as collection ids in config: one path segment, never `.` or `..`. */
export const LAKE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export class UnsafeLakePathError extends Error {
  override readonly name = 'UnsafeLakePathError';
}

export interface FoundFile {
  /** Absolute real path handed to the engine. */
  absolute: string;
  /** Relative to the lake root, `/`-separated: what clients see. */
  relative: string;
  size: number;
  mtimeMs: number;
}

const MAX_DEPTH = 16;
/** Entries of one directory looked at together (file system calls in flight per directory). */
const ENTRIES_AT_ONCE = 16;

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

export async function realRoot(root: string): Promise<string> {
  return fs.realpath(path.resolve(root)).catch(() => path.resolve(root));
}

/** Parquet files under `<root>/<id>/data`, sorted by relative path (the scan order). Empty when the prefix does not exist. */
export async function findParquetFiles(root: string, id: string): Promise<FoundFile[]> {
  if (!LAKE_ID.test(id)) throw new UnsafeLakePathError(`invalid collection id "${id.slice(0, 64)}"`);
  const base = await realRoot(root);
  const prefix = path.resolve(base, id, 'data');
  if (!inside(base, prefix)) throw new UnsafeLakePathError('collection prefix escapes the lake root');
  const out: FoundFile[] = [];
  const seen = new Set<string>();

  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) return;
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    // The entries of a directory are looked at several at a time: a walk takes a few turns of the
    // event loop per level, not one per file (a busy service makes each turn wait).
    const visit = async (e: import('node:fs').Dirent): Promise<void> => {
      if (e.name.startsWith('.') || e.name.startsWith('_')) return; // hidden and _SUCCESS-style markers
      let full = path.join(dir, e.name);
      if (e.isSymbolicLink()) {
        const target = await fs.realpath(full).catch(() => undefined);
        if (!target || !inside(base, target)) return;
        full = target;
      }
      const st = await fs.stat(full).catch(() => undefined);
      if (!st) return;
      if (st.isDirectory()) {
        if (seen.has(full)) return; // a link loop
        seen.add(full);
        await walk(full, depth + 1);
      } else if (st.isFile() && e.name.toLowerCase().endsWith('.parquet')) {
        const relative = path.relative(base, path.join(dir, e.name)).split(path.sep).join('/');
        out.push({ absolute: full, relative, size: st.size, mtimeMs: st.mtimeMs });
      }
    };
    for (let i = 0; i < entries.length; i += ENTRIES_AT_ONCE) await Promise.all(entries.slice(i, i + ENTRIES_AT_ONCE).map(visit));
  };
  const real = await fs.realpath(prefix).catch(() => undefined);
  if (!real || !inside(base, real)) return [];
  seen.add(real);
  await walk(real, 0);
  out.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
  return out;
}
