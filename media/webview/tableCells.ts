// A table row with more cells than its header: markdown-it (as GFM says) drops the cells past
// the header's count, and every word in them. An agent's text must never vanish from the panel,
// so those cells are kept in the row's last cell, with the "|" between them as the agent typed.
// Pure (no DOM): a markdown-it plugin that wraps its table rule.
import type { MarkdownIt, StateBlock, Token } from 'markdown-it';

/** A row's cells as markdown-it's table rule splits them: at "|" not escaped by "\", the "\" dropped. */
function splitCells(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '|' && line[i - 1] === '\\') cell = `${cell.slice(0, -1)}|`;
    else if (ch === '|') {
      cells.push(cell);
      cell = '';
    } else cell += ch;
  }
  cells.push(cell);
  if (cells.length && cells[0]?.trim() === '') cells.shift();
  if (cells.length && cells[cells.length - 1]?.trim() === '') cells.pop();
  return cells;
}

/** The row's cells from `tokens[open]` (a tr_open) to its tr_close: their inline tokens. */
function rowCells(tokens: Token[], open: number): Token[] {
  const cells: Token[] = [];
  for (let i = open + 1; i < tokens.length && tokens[i]?.type !== 'tr_close'; i++) {
    const t = tokens[i];
    if (t?.type === 'inline') cells.push(t);
  }
  return cells;
}

/** Puts the text of each body row's extra cells, from `tokens[from]` on, into that row's last cell. */
function keepExtraCells(state: StateBlock, from: number): void {
  let inBody = false;
  for (let i = from; i < state.tokens.length; i++) {
    const t = state.tokens[i];
    if (t?.type === 'tbody_open') inBody = true;
    if (!inBody || t?.type !== 'tr_open' || !t.map) continue;
    const line = t.map[0];
    const text = state.src.slice((state.bMarks[line] ?? 0) + (state.tShift[line] ?? 0), state.eMarks[line]).trim();
    const typed = splitCells(text);
    const cells = rowCells(state.tokens, i);
    const last = cells[cells.length - 1];
    if (!last || typed.length <= cells.length) continue;
    const extra = typed.slice(cells.length).map((c) => c.trim());
    last.content = [last.content, ...extra].join(' | ');
  }
}

/** The plugin: markdown-it's table rule, then the extra cells kept. */
export function tableCellsKept(md: MarkdownIt): void {
  const rule = md.block.ruler.__rules__.find((r) => r.name === 'table');
  if (!rule) return;
  const table = rule.fn;
  md.block.ruler.at(
    'table',
    (state, startLine, endLine, silent) => {
      const from = state.tokens.length;
      if (!table(state, startLine, endLine, silent)) return false;
      if (!silent) keepExtraCells(state, from);
      return true;
    },
    { alt: rule.alt },
  );
}
