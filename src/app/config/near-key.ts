/**
 * "Did you mean": the known key nearest to a misspelt one, by edit distance (case ignored), when
 * it is near enough to be the likely intent (about one edit in three characters).
 */
export function nearest(key: string, known: readonly string[]): string | undefined {
  const k = key.toLowerCase();
  let best: { key: string; d: number } | undefined;
  for (const candidate of known) {
    const d = editDistance(k, candidate.toLowerCase());
    if (!best || d < best.d) best = { key: candidate, d };
  }
  return best && best.d <= Math.max(1, Math.floor(Math.max(key.length, best.key.length) / 3)) ? best.key : undefined;
}

/**
 * Edit distance counting a swap of neighbours as one edit (optimal string alignment), the usual
 * typing slip; config keys are short, so the quadratic table is cheap.
 */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!, up = d[i - 1]!;
      row[j] = Math.min(up[j]! + 1, row[j - 1]! + 1, up[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
