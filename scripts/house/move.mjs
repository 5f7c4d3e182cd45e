// The house codemod: feature folders for the editor side, one word for one meaning. It moves files
// (git mv), moves a few declarations between files (to break import cycles: a type goes to its
// owner), renames identifiers through the TypeScript language service (ts-morph: every reference,
// comments included), rewrites every relative import in src/, test/ and media/webview/, and then
// the paths written as text (build entry points, stryker, tsconfigs, ESLint, docs, comments).
//
//   node scripts/house/move.mjs            on a clean checkout of main (refuses a dirty tree)
//   node scripts/house/move.mjs --dirty    on a tree with uncommitted changes
//
// It checks everything it expects before it changes anything, and stops with the list of what is
// missing (a file moved or renamed since, an identifier gone): nothing is skipped in silence. Run
// twice, the second run finds the old files gone and stops. Afterwards: `npx prettier --write`
// is run on what changed; then `npm run typecheck && npm run lint` and the unit tests.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { Node, Project, SyntaxKind } from 'ts-morph';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../..');
process.chdir(root);
const git = (...args) => execFileSync('git', args, { encoding: 'utf8' }).trim();

// ---------------------------------------------------------------------------------------------
// The plan.

/** Files moved: old → new. A folder's files are listed one by one, so that a new file is seen. */
const MOVES = {
  // src/ keeps activation, the command table, the public API and the settings.
  'src/log.ts': 'src/ui/log.ts',
  'src/notify.ts': 'src/ui/notify.ts',
  'src/agentMachinery.ts': 'src/runtime/machineryLoader.ts',
  'src/agentMachineryExports.ts': 'src/runtime/machinery.ts',
  // The window's conversations: one per folder, what they say, their commands.
  'src/windowSessions.ts': 'src/conversation/conversations.ts',
  'src/folderSession.ts': 'src/conversation/folderConversation.ts',
  'src/folderAgent.ts': 'src/conversation/folderAgent.ts',
  'src/agentNotices.ts': 'src/conversation/agentNotices.ts',
  'src/answers.ts': 'src/conversation/answers.ts',
  'src/userText.ts': 'src/conversation/userText.ts',
  'src/mcp.ts': 'src/conversation/mcp.ts',
  'src/firstRun.ts': 'src/conversation/firstRun.ts',
  'src/firstRunCommands.ts': 'src/conversation/firstRunCommands.ts', // split from firstRun.ts below
  'src/statusBar.ts': 'src/conversation/statusBar.ts',
  'src/sessions.ts': 'src/conversation/sessionCommands.ts',
  'src/configCommands.ts': 'src/conversation/configCommands.ts',
  'src/auth/commands.ts': 'src/conversation/signInCommands.ts',
  'src/panel/panelSerializer.ts': 'src/conversation/panelSerializer.ts',
  // May a turn start here: in this folder, in this checkout across windows; and what is said when not.
  'src/session/folderGate.ts': 'src/admission/folderAdmission.ts',
  'src/session/checkoutLock.ts': 'src/admission/checkoutLock.ts',
  'src/session/windowLock.ts': 'src/admission/checkoutAdmission.ts',
  'src/checkoutWait.ts': 'src/admission/awaitCheckout.ts',
  'src/promptRefusal.ts': 'src/admission/promptRefusal.ts',
  'src/busyPrompt.ts': 'src/admission/busyPrompt.ts',
  'src/session/checkoutLine.ts': 'src/admission/checkoutLine.ts',
  'src/session/checkoutLineController.ts': 'src/admission/checkoutLineController.ts',
  // Sessions kept across reloads, restarts and crashes.
  'src/sessionKeeper.ts': 'src/persistence/sessionKeeper.ts',
  'src/session/sessionStore.ts': 'src/persistence/sessionStore.ts',
  'src/session/savedTranscript.ts': 'src/persistence/savedTranscript.ts',
  'src/session/saveSchedule.ts': 'src/persistence/saveSchedule.ts',
  'src/session/restartBudget.ts': 'src/persistence/restartBudget.ts',
  // Undo This Turn's Changes: the checkpoint (pure) and its editor side.
  'src/turnUndo.ts': 'src/undo/turnUndo.ts',
  'src/handEdits.ts': 'src/undo/handEdits.ts',
  'src/session/checkpoint/checkpoint.ts': 'src/undo/checkpoint/checkpoint.ts',
  'src/session/checkpoint/takeCheckpoint.ts': 'src/undo/checkpoint/takeCheckpoint.ts', // split from checkpoint.ts below
  'src/session/checkpoint/fileCheckpoint.ts': 'src/undo/checkpoint/fileCheckpoint.ts',
  'src/session/checkpoint/gitCheckpoint.ts': 'src/undo/checkpoint/gitCheckpoint.ts',
  'src/session/checkpoint/paths.ts': 'src/undo/checkpoint/paths.ts',
  'src/session/checkpoint/undoText.ts': 'src/undo/checkpoint/undoText.ts',
  // The editor's side of an agent's work: links, diff documents, the @ search, open documents.
  'src/editorFiles.ts': 'src/editor/openDocuments.ts',
  'src/panel/editorLinks.ts': 'src/editor/editorLinks.ts',
  'src/panel/fileSearch.ts': 'src/editor/fileSearch.ts',
  'src/session/panelStatus.ts': 'src/panel/panelStatus.ts',
  'src/inputReturn.ts': 'src/panel/inputReturn.ts',
  'src/auth/secrets.ts': 'src/agents/secrets.ts',
  // The agent runtime (what was session/): "session" is the ACP session only.
  'src/session/agentQuirks.ts': 'src/runtime/knownAgents.ts',
  // Tests named after what they test.
  'test/unit/agentQuirks.test.ts': 'test/unit/knownAgents.test.ts',
  'test/unit/folderGate.test.ts': 'test/unit/folderAdmission.test.ts',
};
/** Every other file of these folders moves to the new folder under its own name. */
const FOLDER_MOVES = { 'src/session/': 'src/runtime/' };
/** Folders named as text (longest first); a bare `session/` is left alone (ACP's method names). */
const FOLDER_WORDS = { 'src/session/checkpoint/': 'src/undo/checkpoint/', 'session/checkpoint/': 'undo/checkpoint/', 'src/session/': 'src/runtime/' };

/** Declarations moved to the file that owns them, to break a cycle (from, names, to). */
const DECLARATION_MOVES = [
  // checkpoint.ts ↔ fileCheckpoint.ts, gitCheckpoint.ts, paths.ts: the types stay, the factory goes.
  {
    from: 'src/session/checkpoint/checkpoint.ts',
    names: ['takeCheckpoint'],
    to: 'src/session/checkpoint/takeCheckpoint.ts',
    create: true,
    header: '// Which checkpoint a folder gets: a git snapshot in a git checkout, else the files saved as the agent\n// writes them. No `vscode` here.\n',
  },
  // outOfStep.ts ↔ agentQuirks.ts: the table owns the recovery it names per agent.
  { from: 'src/session/outOfStep.ts', names: ['OutOfStepRecovery'], to: 'src/session/agentQuirks.ts' },
  // config.ts ↔ agents/catalog.ts: an agent entry is the catalog's; the settings read it.
  { from: 'src/config.ts', names: ['AgentEntry'], to: 'src/agents/catalog.ts' },
  // config.ts ↔ agents/: which agent to start, from `reins.agents` and the demo, is the agents' setting.
  { from: 'src/config.ts', names: ['ResolvedAgent', 'DEMO_AGENT', 'configuredAgents', 'resolveAgent', 'demoAgentEntry'], to: 'src/agents/agentSettings.ts' },
  // firstRun.ts ↔ windowSessions.ts: the commands of the first run are a command module of their own.
  {
    from: 'src/firstRun.ts',
    names: ['registerFirstRun'],
    to: 'src/firstRunCommands.ts',
    create: true,
    header:
      "// The first run's commands: Try the Demo, Choose an Agent, the welcome view; and what Stop does,\n// said once when the first real agent is ready.\n",
  },
  // The scripted agent: the JSON-RPC error is the peer's; the terminal step is the scenario's vocabulary.
  { from: 'src/demoAgent/scenario.ts', names: ['RpcError'], to: 'src/demoAgent/peer.ts' },
  { from: 'src/demoAgent/terminalSteps.ts', names: ['TerminalStep'], to: 'src/demoAgent/scenario.ts' },
];
/** Identifiers renamed where they are declared (file at its old path), with every reference. */
const RENAMES = [
  ['src/folderSession.ts', 'FolderSession', 'FolderConversation'],
  ['src/windowSessions.ts', 'WindowSessions', 'Conversations'],
  ['src/windowSessions.ts', 'WindowSessions.session', 'conversation'],
  ['src/windowSessions.ts', 'WindowSessions.activeSession', 'activeConversation'],
  ['src/windowSessions.ts', 'WindowSessions.allSessions', 'allConversations'],
  ['src/windowSessions.ts', 'WindowSessions.viewSession', 'viewConversation'],
  ['src/windowSessions.ts', 'WindowSessions.sessions', 'conversations'],
  ['src/windowSessions.ts', 'WindowSessions.gate', 'admission'],
  // One word for "may a turn start here": admission.
  ['src/session/folderGate.ts', 'FolderGate', 'FolderAdmission'],
  ['src/session/folderGate.ts', 'GateMember', 'AdmissionMember'],
  ['src/session/folderGate.ts', 'GateVerdict', 'Admission'],
  ['src/session/checkoutLock.ts', 'LockVerdict', 'LockAdmission'],
  ['src/session/windowLock.ts', 'WindowLock', 'CheckoutAdmission'],
  ['src/session/windowLock.ts', 'LockedRuntime', 'AdmittedRuntime'],
  ['src/checkoutWait.ts', 'takeCheckout', 'awaitCheckout'],
  ['src/promptRefusal.ts', 'gateClosedText', 'notAdmittedText'],
  ['src/session/checkpoint/undoText.ts', 'UndoGate', 'UndoAdmission'],
  ['src/turnUndo.ts', 'UndoHost.gate', 'admission'],
  ['src/folderSession.ts', 'FolderSession.windowLock', 'checkoutAdmission'],
  ['src/folderSession.ts', 'FolderSession.gate', 'admission'],
  ['src/folderSession.ts', 'FolderSession.gatePath', 'admissionPath'],
  ['src/folderSession.ts', 'FolderSession.undoGate', 'undoAdmission'],
  // The agent machinery: the loader and what it loads.
  ['src/agentMachinery.ts', 'agentMachinery', 'loadMachinery'],
  // quirks.ts recognises an agent's quirks; the table of known agents is knownAgents.ts.
  ['src/session/agentQuirks.ts', 'quirkTableMarkdown', 'knownAgentsMarkdown'],
];

/**
 * Declarations renamed by their type: a variable, parameter or property whose type is one of
 * these (alone, `| undefined`, an array or a map of it) and whose name says the old word.
 */
const TYPED_RENAMES = [
  { type: /\bFolderConversation\b/, from: /session/g, to: 'conversation', fromCap: /Session/g, toCap: 'Conversation' },
  { type: /\bConversations\b/, from: /^(windowSessions|sessions)$/, to: 'conversations' },
  { type: /\bFolderAdmission\b/, from: /^gate$/, to: 'admission' },
  { type: /\bCheckoutAdmission\b/, from: /^windowLock$/, to: 'checkoutAdmission' },
];

/** Words in test assertions and comments that name a renamed member (not reached by the rename). */
const WORDS = [
  ['activeSession', 'activeConversation'],
  ['allSessions', 'allConversations'],
  ['viewSession', 'viewConversation'],
  ['FolderSession', 'FolderConversation'],
  ['WindowSessions', 'Conversations'],
  ['FolderGate', 'FolderAdmission'],
  ['GateVerdict', 'Admission'],
  ['WindowLock', 'CheckoutAdmission'],
  ['quirkTableMarkdown', 'knownAgentsMarkdown'],
  ['WindowSessions.session', 'Conversations.conversation'],
  ['folder session', 'folder conversation'],
  ['folder sessions', 'folder conversations'],
  ['Folder session', 'Folder conversation'],
  ['folder gate', 'folder admission'],
  ["folder's gate", "folder's admission"],
  ['in-window gate', 'in-window admission'],
  // Renamed files named bare in comments (each name is unique in the repository).
  ['folderSession.ts', 'folderConversation.ts'],
  ['windowSessions.ts', 'conversations.ts'],
  ['folderGate.ts', 'folderAdmission.ts'],
  ['windowLock.ts', 'checkoutAdmission.ts'],
  ['checkoutWait.ts', 'awaitCheckout.ts'],
  ['agentQuirks.ts', 'knownAgents.ts'],
  ['agentMachinery.ts', 'machineryLoader.ts'],
  ['agentMachineryExports.ts', 'machinery.ts'],
  ['editorFiles.ts', 'openDocuments.ts'],
  ['agentQuirks.test.ts', 'knownAgents.test.ts'],
  ['folderGate.test.ts', 'folderAdmission.test.ts'],
];

/** Exact edits where a renamed file is named by no path (each must be found, or the codemod stops). */
const EDITS = [['scripts/mutation/specs.mjs', "  'unit/folderGate',\n", "  'unit/folderAdmission',\n"]];

/** Text files whose paths are rewritten (besides every .ts, .mjs and .json that git tracks). */
const TEXT_GLOBS = ['*.md', '**/*.md', '.vscode/*.json', '.github/**/*.yml', '*.mjs', '.mocharc*', '**/.mocharc*.json', 'stryker.config.json'];
/** Left as they are: history (CHANGELOG), sample data that only looks like paths. */
const TEXT_KEEP = new Set(['CHANGELOG.md', 'test/unit/toolCards.test.ts', 'package-lock.json', 'scripts/house/move.mjs']);

// ---------------------------------------------------------------------------------------------
// Checks before any change.

const dirty = git('status', '--porcelain');
if (dirty && !process.argv.includes('--dirty')) fail([`the work tree has uncommitted changes (use --dirty to run anyway):\n${dirty}`]);

/** Files a declaration move creates (they are then moved like the others): they must not exist yet. */
const created = new Set(DECLARATION_MOVES.filter((m) => m.create).map((m) => m.to));
const moves = new Map(Object.entries(MOVES));
for (const [fromDir, toDir] of Object.entries(FOLDER_MOVES)) {
  if (!existsSync(fromDir)) fail([`${fromDir} is missing`]);
  for (const f of git('ls-files', fromDir).split('\n').filter(Boolean)) if (!moves.has(f)) moves.set(f, toDir + f.slice(fromDir.length));
}
const problems = [];
for (const [from, to] of moves) {
  if (!existsSync(from) && !created.has(from)) problems.push(`missing: ${from} (to become ${to})`);
  if (existsSync(to)) problems.push(`already there: ${to} (was the codemod run already?)`);
}
for (const { from, to } of DECLARATION_MOVES) {
  if (!existsSync(from)) problems.push(`missing: ${from}`);
  if (created.has(to) ? existsSync(to) : !existsSync(to)) problems.push(created.has(to) ? `already there: ${to}` : `missing: ${to}`);
}
for (const [file, from] of EDITS)
  if (!existsSync(file) || !readFileSync(file, 'utf8').includes(from)) problems.push(`${file} no longer says ${JSON.stringify(from)}`);
if (problems.length) fail(problems);

// ---------------------------------------------------------------------------------------------
// The TypeScript side, in memory.

const project = new Project({ tsConfigFilePath: 'test/tsconfig.json', skipAddingFilesFromTsConfig: false });
project.addSourceFilesFromTsConfig('tsconfig.json');
project.addSourceFilesFromTsConfig('media/webview/tsconfig.json');
const sf = (p) => project.getSourceFile(resolve(p)) ?? fail([`not in the project: ${p}`]);

function exportedDeclarations(file, name) {
  const decls = file.getExportedDeclarations().get(name);
  if (!decls?.length) fail([`${relative(root, file.getFilePath())} has no exported ${name}`]);
  return decls;
}

/** The module specifier from `fromFile` to `toFile` as this codebase writes it (relative, no extension). */
function specifier(fromFile, toPath) {
  let s = relative(dirname(fromFile.getFilePath()), resolve(toPath)).replace(/\.ts$/, '');
  if (!s.startsWith('.')) s = `./${s}`;
  return s;
}

/** Point every import of `names` from `fromPath` at `toPath`, in every file of the project. */
function redirectImports(fromPath, names, toPath) {
  const from = resolve(fromPath);
  for (const file of project.getSourceFiles()) {
    for (const imp of [...file.getImportDeclarations(), ...file.getExportDeclarations()]) {
      if (imp.getModuleSpecifierSourceFile()?.getFilePath() !== from) continue;
      const named = imp.getNamedImports?.() ?? imp.getNamedExports();
      const moving = named.filter((n) => names.includes(n.getName()));
      if (!moving.length) continue;
      if (file.getFilePath() === resolve(toPath)) {
        // The names now live here: the import of them goes.
        for (const n of moving) n.remove();
      } else {
        const isType = Node.isImportDeclaration(imp) && imp.isTypeOnly();
        const texts = moving.map((n) => n.getText());
        for (const n of moving) n.remove();
        const spec = specifier(file, toPath);
        const existing = file.getImportDeclaration((d) => d.getModuleSpecifierValue() === spec);
        if (Node.isImportDeclaration(imp) && existing && !existing.getNamespaceImport()) {
          if (existing.isTypeOnly() && !isType) {
            // A value joins a type-only import: the import becomes a value import, its names `type`.
            const had = existing.getNamedImports().map((n) => n.getText());
            for (const n of existing.getNamedImports()) n.remove();
            existing.setIsTypeOnly(false);
            for (const t of had) existing.addNamedImport(t.startsWith('type ') ? t : `type ${t}`);
          }
          for (const t of texts) existing.addNamedImport(isType && !existing.isTypeOnly() && !t.startsWith('type ') ? `type ${t}` : t);
        } else if (Node.isImportDeclaration(imp)) {
          file.insertImportDeclaration(imp.getChildIndex() + 1, { isTypeOnly: isType, namedImports: texts, moduleSpecifier: spec });
        } else {
          file.insertExportDeclaration(imp.getChildIndex() + 1, { namedExports: texts, moduleSpecifier: spec });
        }
      }
      const left = imp.getNamedImports?.() ?? imp.getNamedExports();
      if (!left.length && !(Node.isImportDeclaration(imp) && (imp.getDefaultImport() || imp.getNamespaceImport()))) imp.remove();
    }
  }
}

/** The statements that declare `names` in `file` (with their doc comments), removed from it as text. */
function takeStatements(file, names) {
  const statements = [];
  for (const name of names) {
    for (const d of exportedDeclarations(file, name)) {
      const st = Node.isVariableDeclaration(d) ? d.getVariableStatementOrThrow() : d;
      if (!statements.includes(st)) statements.push(st);
    }
  }
  return statements;
}

function moveDeclarations({ from, names: listed, to, header }) {
  const source = sf(from);
  // A name `from` only re-exports (declared elsewhere since this plan was written): its importers
  // import it from where it is declared, and the re-export goes; the rest of the plan holds.
  const names = [];
  for (const name of listed) {
    const home = exportedDeclarations(source, name)[0].getSourceFile();
    if (home === source) {
      names.push(name);
      continue;
    }
    for (const ed of source.getExportDeclarations()) {
      for (const ne of ed.getNamedExports()) if (ne.getName() === name) ne.remove();
      if (!ed.getNamedExports().length && !ed.isNamespaceExport?.()) ed.remove();
    }
    redirectImports(from, [name], relative(root, home.getFilePath()));
    console.log(`move.mjs: ${name} is declared in ${relative(root, home.getFilePath())}, not ${from}: imported from there`);
  }
  let target = project.getSourceFile(resolve(to));
  if (!target) target = project.createSourceFile(resolve(to), header ?? '');
  const statements = takeStatements(source, names);
  // What the moved text uses of its old file's other declarations: exported there, imported here.
  const locals = new Map();
  for (const st of source.getStatements()) {
    if (statements.includes(st)) continue;
    const declared = Node.isVariableStatement(st) ? st.getDeclarations() : [st];
    for (const d of declared) if (d.getName?.()) locals.set(d.getName(), st);
  }
  const usedLocals = [...new Set(statements.flatMap((s) => s.getDescendantsOfKind(SyntaxKind.Identifier).map((i) => i.getText())))].filter((n) =>
    locals.has(n),
  );
  for (const n of usedLocals) if (!locals.get(n).isExported()) locals.get(n).setIsExported(true);
  const text = statements.map((s) => s.getFullText().replace(/^\n+/, '')).join('\n\n');
  // Imports the moved text needs, copied from the source file (unused ones are pruned below).
  const needed = source.getImportDeclarations().map((d) => d.getStructure());
  for (const s of statements) s.remove();
  target.addStatements(`\n${text}`);
  for (const structure of needed) {
    const spec = structure.moduleSpecifier.startsWith('.')
      ? specifier(target, resolve(dirname(source.getFilePath()), structure.moduleSpecifier))
      : structure.moduleSpecifier;
    if (resolve(dirname(target.getFilePath()), spec) === target.getFilePath().replace(/\.ts$/, '')) continue;
    addImport(target, { ...structure, moduleSpecifier: spec });
  }
  if (usedLocals.length) {
    const typeOnly = usedLocals.every((n) => Node.isInterfaceDeclaration(locals.get(n)) || Node.isTypeAliasDeclaration(locals.get(n)));
    addImport(target, {
      isTypeOnly: typeOnly,
      namedImports: usedLocals,
      moduleSpecifier: specifier(target, from),
    });
  }
  // The source file may still use what moved: import it from the new place.
  redirectImports(from, names, to);
  const stillUsed = names.filter((n) => source.getDescendantsOfKind(SyntaxKind.Identifier).some((i) => i.getText() === n));
  if (stillUsed.length)
    source.addImportDeclaration({
      isTypeOnly: stillUsed.every((n) => /^[A-Z]/.test(n) && !/^[A-Z_]+$/.test(n)),
      namedImports: stillUsed,
      moduleSpecifier: specifier(source, to),
    });
  pruneImports(target);
  pruneImports(source);
}

/** An import added after a file's last import (or after its header comment when it has none). */
function addImport(file, structure) {
  const last = file.getImportDeclarations().at(-1);
  let index = last ? last.getChildIndex() + 1 : 0;
  if (!last) while (file.getStatementsWithComments()[index]?.getKind() === SyntaxKind.SingleLineCommentTrivia) index++;
  const same = file
    .getImportDeclarations()
    .find(
      (d) =>
        d.getModuleSpecifierValue() === structure.moduleSpecifier &&
        (d.getNamespaceImport()?.getText() ?? null) === (structure.namespaceImport ?? null) &&
        !structure.namedImports?.length,
    );
  if (same) return;
  file.insertImportDeclaration(index, structure);
}

/** Drop the named imports a file does not use (only those this codemod may have left behind). */
function pruneImports(file) {
  const used = new Set(
    file
      .getDescendantsOfKind(SyntaxKind.Identifier)
      .filter((i) => !i.getFirstAncestorByKind(SyntaxKind.ImportDeclaration))
      .map((i) => i.getText()),
  );
  for (const imp of file.getImportDeclarations()) {
    if (!imp.getImportClause()) continue; // an import for its side effects stays
    for (const n of imp.getNamedImports()) if (!used.has((n.getAliasNode() ?? n.getNameNode()).getText())) n.remove();
    const def = imp.getDefaultImport();
    const ns = imp.getNamespaceImport();
    if (def && !used.has(def.getText())) imp.removeDefaultImport();
    if (ns && !used.has(ns.getText())) imp.removeNamespaceImport();
    if (!imp.getNamedImports().length && !imp.getDefaultImport() && !imp.getNamespaceImport()) imp.remove();
  }
  // Duplicate import declarations of one module (the copied ones): merge their names.
  const bySpec = new Map();
  for (const imp of file.getImportDeclarations()) {
    if (imp.getNamespaceImport() || imp.getDefaultImport()) {
      const key = `whole:${imp.getText()}`;
      if (bySpec.has(key)) imp.remove();
      else bySpec.set(key, imp);
      continue;
    }
    const key = `${imp.isTypeOnly()}:${imp.getModuleSpecifierValue()}`;
    const first = bySpec.get(key);
    if (!first) bySpec.set(key, imp);
    else {
      const have = new Set(first.getNamedImports().map((n) => n.getText()));
      for (const n of imp.getNamedImports()) if (!have.has(n.getText())) first.addNamedImport(n.getText());
      imp.remove();
    }
  }
}

function findMember(file, dotted) {
  const [owner, member] = dotted.split('.');
  const decl = exportedDeclarations(file, owner)[0] ?? file.getInterface(owner) ?? file.getClass(owner);
  if (!member) return decl;
  const found =
    decl.getMembers().find((m) => m.getName?.() === member) ?? (Node.isClassDeclaration(decl) ? decl.getConstructors()[0]?.getParameter(member) : undefined);
  if (!found) fail([`${relative(root, file.getFilePath())}: ${dotted} not found`]);
  return found;
}

function renameAll() {
  const problems = [];
  const targets = RENAMES.map(([path, dotted, to]) => {
    const file = project.getSourceFile(resolve(path));
    if (!file) return problems.push(`missing: ${path}`);
    const decl = (() => {
      try {
        const [owner] = dotted.split('.');
        if (!dotted.includes('.') && !file.getExportedDeclarations().has(owner) && !file.getInterface(owner)) return undefined;
        if (dotted.includes('.') && !file.getInterface(owner) && !file.getExportedDeclarations().has(owner)) return undefined;
        return findMember(file, dotted);
      } catch {
        return undefined;
      }
    })();
    if (!decl) return problems.push(`${path}: ${dotted} not found`);
    return [decl, to];
  });
  if (problems.length) fail(problems);
  for (const [decl, to] of targets) {
    if (decl.getName() === to) continue;
    // In comments too, but only a name that cannot be a plain word ("session", "gate" are).
    decl.rename(to, { renameInComments: /[A-Z]/.test(decl.getName()), renameInStrings: false });
  }
}

function typedRenames() {
  const kinds = [SyntaxKind.Parameter, SyntaxKind.VariableDeclaration, SyntaxKind.PropertyDeclaration, SyntaxKind.PropertySignature];
  const todo = [];
  for (const file of project.getSourceFiles()) {
    if (file.getFilePath().includes('/node_modules/')) continue;
    for (const kind of kinds) {
      for (const d of file.getDescendantsOfKind(kind)) {
        const nameNode = d.getNameNode();
        if (!Node.isIdentifier(nameNode)) continue;
        const name = nameNode.getText();
        let typeText = d.getType().getText(d);
        // A function that gives one (`const session = () => reins.session()`) is named for what it gives.
        if (typeText.includes('=>')) typeText = /=> ([\w.| []+)$/.exec(typeText)?.[1] ?? '';
        for (const rule of TYPED_RENAMES) {
          if (!rule.type.test(typeText)) continue;
          let to = name.replace(rule.from, rule.to);
          if (rule.fromCap) to = to.replace(rule.fromCap, rule.toCap);
          if (to !== name) todo.push([d, name, to]);
          break;
        }
      }
    }
  }
  for (const d of project.getSourceFiles().flatMap((f) => f.getFunctions())) {
    const name = d.getName();
    if (!name) continue;
    const ret = d.getReturnType().getText(d);
    for (const rule of TYPED_RENAMES) {
      if (!rule.type.test(ret)) continue;
      let to = name.replace(rule.from, rule.to);
      if (rule.fromCap) to = to.replace(rule.fromCap, rule.toCap);
      if (to !== name) todo.push([d, name, to]);
      break;
    }
  }
  for (const [d, name, to] of todo) {
    if (d.wasForgotten() || d.getName() !== name) continue;
    d.rename(to, { renameInComments: false, renameInStrings: false });
  }
}

/** `require('./x')` (the machinery's lazy load): the language service does not move these. */
function requireTargets() {
  const found = [];
  for (const file of project.getSourceFiles()) {
    for (const call of file.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      const [arg] = call.getArguments();
      if (call.getExpression().getText() !== 'require' || !Node.isStringLiteral(arg) || !arg.getLiteralValue().startsWith('.')) continue;
      const target = project.getSourceFile(resolve(dirname(file.getFilePath()), `${arg.getLiteralValue()}.ts`));
      if (!target) fail([`${relative(root, file.getFilePath())}: require('${arg.getLiteralValue()}') names no file`]);
      found.push([file, arg, target]);
    }
  }
  return found;
}

const movedSrc = [];
function moveFiles() {
  for (const [from, to] of moves) {
    const file = sf(from);
    movedSrc.push([from, to]);
    file.move(resolve(to), { overwrite: false });
  }
}

for (const m of DECLARATION_MOVES) moveDeclarations(m);
renameAll();
typedRenames();
const requires = requireTargets();
moveFiles();
for (const [file, arg, target] of requires) arg.setLiteralValue(specifier(file, target.getFilePath()));

// On disk: git mv first (so git keeps each file's history), then the rewritten text.
for (const [from, to] of moves) {
  if (!existsSync(from)) continue; // made by a declaration move: written by the save below
  execFileSync('mkdir', ['-p', dirname(to)]);
  git('mv', from, to);
}
await project.save();
for (const to of moves.values()) git('add', to);

// ---------------------------------------------------------------------------------------------
// Paths and words written as text.

const pathPairs = [...moves].map(([a, b]) => [a, b]);
// Longest first, so that src/session/quirks.ts is never a piece of src/session/agentQuirks.ts.
pathPairs.sort((a, b) => b[0].length - a[0].length);
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pathRe = new RegExp(`(?<![\\w/.-])(${pathPairs.map(([a]) => esc(a.replace(/\.ts$/, ''))).join('|')})(\\.ts)?(?![\\w-])`, 'g');
const pathMap = new Map(pathPairs.map(([a, b]) => [a.replace(/\.ts$/, ''), b.replace(/\.ts$/, '')]));
// The same paths written from inside src/ (`session/checkoutLock.ts`): only with their extension.
const bareRe = new RegExp(
  `(?<![\\w/.-])(${pathPairs
    .filter(([a]) => /^src\/.+\//.test(a))
    .map(([a]) => esc(a.slice(4)))
    .join('|')})(?![\\w-])`,
  'g',
);
const bareMap = new Map(pathPairs.filter(([a]) => /^src\/.+\//.test(a)).map(([a, b]) => [a.slice(4), b.slice(4)]));
const folderRe = new RegExp(`(?<![\\w/.-])(${Object.keys(FOLDER_WORDS).map(esc).join('|')})`, 'g');
const wordRe = new RegExp(
  `\\b(${WORDS.map(([a]) => esc(a))
    .sort((a, b) => b.length - a.length)
    .join('|')})\\b`,
  'g',
);
const wordMap = new Map(WORDS);

const textFiles = git('ls-files', '--', '*.ts', '*.mjs', '*.json', '*.md', '*.yml', '.mocharc*', '**/.mocharc*')
  .split('\n')
  .filter((f) => f && existsSync(f) && statSync(f).isFile() && !TEXT_KEEP.has(f) && !f.startsWith('test/fixtures/workspace/'));
void TEXT_GLOBS;
let rewritten = 0;
for (const f of textFiles) {
  const before = readFileSync(f, 'utf8');
  let after = before
    .replace(pathRe, (_m, p, ext = '') => `${pathMap.get(p)}${ext}`)
    .replace(bareRe, (m) => bareMap.get(m))
    .replace(folderRe, (m) => FOLDER_WORDS[m]);
  if (/\.(ts|mjs|md)$/.test(f)) after = after.replace(wordRe, (w) => wordMap.get(w));
  if (after !== before) {
    writeFileSync(f, after);
    rewritten++;
  }
}

for (const [file, from, to] of EDITS) writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));

const changed = git('diff', '--name-only', 'HEAD', '--diff-filter=AMR')
  .split('\n')
  .concat(git('ls-files', '--others', '--exclude-standard').split('\n'))
  .filter((f) => f && existsSync(f) && /\.(ts|mjs|json|md)$/.test(f));
execFileSync('npx', ['prettier', '--write', '--log-level', 'warn', ...changed], { stdio: 'inherit' });
git('add', '-A', 'src', 'test', 'media', 'scripts', 'docs');
console.log(`moved ${moves.size} files, ${DECLARATION_MOVES.length} declaration moves, ${RENAMES.length} renames; paths rewritten in ${rewritten} text files`);
console.log('next: npm run typecheck && npm run lint && node scripts/esbuild.mjs --tests && npx mocha --config test/unit/.mocharc.json');

function fail(lines) {
  console.error(`move.mjs: stopped before changing anything:\n  ${lines.join('\n  ')}`);
  process.exit(1);
}
