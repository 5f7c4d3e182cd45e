#!/usr/bin/env node
// Every relative link in the repository's Markdown resolves: the file (or folder) exists, and a
// `#fragment` into a Markdown file names one of its headings as GitHub slugs them. Offline and
// fast (part of `npm run lint`); links with a scheme (https:, mailto:) are not followed.
// Markdown is parsed by markdown-it (the panel's own renderer) and headings are slugged by
// github-slugger, so what counts as a link and an anchor is what GitHub and the marketplace show.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const md = new MarkdownIt({ html: true });

/** The Markdown files git tracks or would (new ones included), less the fixtures (which are test input, not documentation). */
function markdownFiles() {
  let listed;
  try {
    listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '*.md'], { cwd: repo, encoding: 'utf8' });
  } catch (error) {
    throw new Error(`checkLinks lists the Markdown files with git, in a git checkout: ${error.message}`);
  }
  return listed.split('\0').filter((f) => f && !f.startsWith('test/fixtures/'));
}

/** Text of an inline token as GitHub reads it for the heading's id: text and code, no markup. */
const plain = (inline) => (inline.children ?? []).map((t) => (t.type === 'text' || t.type === 'code_inline' ? t.content : '')).join('');

const parsed = new Map();
/** A file's headings' ids and the links it makes, parsed once. */
function parse(file) {
  if (parsed.has(file)) return parsed.get(file);
  const tokens = md.parse(readFileSync(join(repo, file), 'utf8'), {});
  const slugger = new GithubSlugger();
  const anchors = new Set();
  const links = [];
  tokens.forEach((token, i) => {
    if (token.type === 'heading_open') anchors.add(slugger.slug(plain(tokens[i + 1])));
    for (const child of token.children ?? []) {
      const target = child.type === 'link_open' ? child.attrGet('href') : child.type === 'image' ? child.attrGet('src') : null;
      if (target !== null) links.push({ target, line: (token.map?.[0] ?? 0) + 1 });
    }
  });
  const result = { anchors, links };
  parsed.set(file, result);
  return result;
}

const problems = [];
const files = markdownFiles();
for (const file of files) {
  for (const { target, line } of parse(file).links) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, vscode: …
    const [pathPart, fragment] = target.split('#', 2);
    const path = decodeURIComponent(pathPart);
    const into = path === '' ? file : relative(repo, resolve(repo, dirname(file), path));
    const where = `${file}:${line}: ${target}`;
    if (into.startsWith('..') || !existsSync(join(repo, into))) {
      problems.push(`${where}: no such file (${into})`);
      continue;
    }
    if (fragment !== undefined && into.endsWith('.md') && !parse(into).anchors.has(decodeURIComponent(fragment))) {
      problems.push(`${where}: ${into} has no heading with the id "${fragment}"`);
    }
  }
}

if (problems.length) {
  console.error(`Broken relative links in Markdown (${problems.length}):\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`checkLinks: every relative link in ${files.length} Markdown files resolves`);
