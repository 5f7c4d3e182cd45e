// Which workspace files the composer's `@` offers for what the user typed: pure, so that the
// order is tested without an editor. Every character of the query must appear in the path in
// order (as in Quick Open); a match in the file name beats one spread over folders, a
// contiguous match beats a scattered one, a shorter path beats a longer one.

/** The score of `query` against `path` (higher is better), or undefined when it does not match. */
export function fileScore(query: string, path: string): number | undefined {
  const q = query.toLowerCase();
  const p = path.toLowerCase();
  if (!q) return -p.length;
  const name = p.slice(p.lastIndexOf('/') + 1);
  if (name.startsWith(q)) return 3000 - p.length;
  if (name.includes(q)) return 2000 - p.length;
  if (p.includes(q)) return 1000 - p.length;
  let at = 0;
  for (const ch of q) {
    at = p.indexOf(ch, at);
    if (at < 0) return undefined;
    at++;
  }
  return -p.length;
}

/** The best `limit` of `paths` for `query`, best first (ties: alphabetical). */
export function rankFiles(query: string, paths: readonly string[], limit = 20): string[] {
  const scored: { path: string; score: number }[] = [];
  for (const path of paths) {
    const score = fileScore(query.trim(), path);
    if (score !== undefined) scored.push({ path, score });
  }
  scored.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  return scored.slice(0, limit).map((s) => s.path);
}
