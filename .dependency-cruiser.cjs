// The house's boundaries, checked in `npm run lint` (depcruise src media/webview): no import
// cycle, and the layers of src/ (ARCHITECTURE.md → The picture) import only downwards. Each
// folder of src/ is one part, each loose file one; a part may import its own layer and those
// below. `npm run graph` draws the parts as a Mermaid graph (ARCHITECTURE.md's copy).
/** The layers, lowest first. */
const LAYERS = [
  ['util/', 'shared/', 'vscodeApi.ts'],
  ['acp/', 'ui/', 'demoAgent/'],
  ['runtime/', 'editor/'],
  ['api.ts'],
  ['admission/', 'persistence/', 'undo/', 'config.ts'],
  ['agents/', 'panel/'],
  ['auth/'],
  ['conversation/'],
  ['commands.ts'],
  ['extension.ts'],
  // package.json's main: loads extension.ts's bundle (dist/reins.js) with a code cache.
  ['boot/'],
];
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const part = (p) => `^src/${esc(p)}${p.endsWith('/') ? '' : '$'}`;
const any = (parts) => `(${parts.map(part).join('|')})`;

const layerRules = LAYERS.slice(0, -1).map((parts, i) => ({
  name: `layer-${i + 1}-imports-downwards`,
  comment: `${parts.join(', ')} (layer ${i + 1}) import nothing from a higher layer (ARCHITECTURE.md: the layers)`,
  severity: 'error',
  from: { path: any(parts) },
  to: { path: any(LAYERS.slice(i + 1).flat()) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle: a cycle makes the layers meaningless and the load order fragile.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'webview-only-shared',
      comment: 'The webview (a browser page) imports nothing from src/ but src/shared/ (the typed messages).',
      severity: 'error',
      from: { path: '^media/webview/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'core-without-editor',
      comment: 'The core (acp, runtime, util, shared, the scripted agent) imports nothing of the editor side.',
      severity: 'error',
      from: { path: '^src/(acp|runtime|util|shared|demoAgent)/' },
      to: { path: '^src/', pathNot: '^src/(acp|runtime|util|shared|demoAgent)/' },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|out|dist)/' },
    // Type-only imports count: a type is a dependency of the design too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
    reporterOptions: {
      dot: { collapsePattern: '^src/[^/]+/' },
      archi: { collapsePattern: '^src/[^/]+/' },
    },
  },
};
