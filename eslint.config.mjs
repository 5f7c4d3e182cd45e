// ESLint 9 flat config: typescript-eslint's type-aware rules for the TypeScript (each file is
// checked against its own tsconfig: src/, media/webview/, test/), the plain recommended rules for
// the build and host scripts (.mjs). Formatting is Prettier's job (eslint-config-prettier last).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const OPTIONS = {
  'switch-exhaustiveness-check': [{ considerDefaultExhaustiveForUnions: true }],
  // A Uri in a template is its toString(), which is what the CSP and the logs want.
  'restrict-template-expressions': [{ allowNumber: true, allow: [{ from: 'package', package: 'vscode', name: 'Uri' }] }],
};

const VSCODE_IN_CORE = 'The core and the pure files run without VS Code (unit tests, the interop suite): take what you need as a parameter';
/** The feature folders' pure files (their vscode adapters beside them). */
const PURE_FILES = [
  'src/agents/catalog.ts',
  'src/agents/findCommand.ts',
  'src/agents/launch.ts',
  'src/agents/pickerItems.ts',
  'src/agents/presets.ts',
  'src/agents/registry.ts',
  'src/auth/methods.ts',
  'src/admission/checkoutAdmission.ts',
  'src/admission/checkoutLock.ts',
  'src/admission/folderAdmission.ts',
  'src/admission/refusalText.ts',
  'src/admission/sendPipeline.ts',
  'src/persistence/restartBudget.ts',
  'src/persistence/savedTranscript.ts',
  'src/persistence/saveSchedule.ts',
  'src/persistence/sessionStore.ts',
  'src/persistence/transcriptFile.ts',
  'src/panel/linkCheck.ts',
  'src/panel/outbox.ts',
  'src/panel/pageSnapshot.ts',
  'src/panel/panelStatus.ts',
  'src/panel/webviewInput.ts',
  'src/conversation/userText.ts',
];

export default defineConfig(
  {
    ignores: ['dist/', 'out/', 'reports/', '.stryker-tmp/', 'node_modules/', '.vscode-test/', 'test-results/', 'test/agents-cache/', '**/*.d.ts'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      // The ones that catch real bugs in an extension that lives on promises and unions.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', ...OPTIONS['switch-exhaustiveness-check']],
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/restrict-template-expressions': ['error', ...OPTIONS['restrict-template-expressions']],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-throw-literal': 'off', // only-throw-error is the type-aware version
      // `_`-prefixed parameters and destructured leftovers are deliberate.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // Build, host and install scripts: plain Node ES modules, no type information.
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { ...globals.node },
    },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests read JSON payloads and records loosely on purpose: the any-tracking rules would only
    // add casts there. The promise and exhaustiveness rules apply to tests too.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // page.evaluate() callbacks run in the browser.
    files: ['test/host/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, document: 'readonly', window: 'readonly' } },
  },
  {
    files: ['media/webview/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // A notification draws `[label](command:…)` as a link that runs the command: messages go
    // through src/ui/notify.ts, which unlinks the text Reins did not write. (Tried: a direct call
    // put back in src/conversation/mcp.ts printed "Use src/ui/notify.ts: it keeps quoted text from becoming a
    // command link".)
    files: ['src/**/*.ts'],
    ignores: ['src/ui/notify.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.property.name='window'][property.name=/^show(Error|Warning|Information)Message$/]",
          message: 'Use src/ui/notify.ts: it keeps quoted text from becoming a command link.',
        },
      ],
    },
  },
  {
    // Where Reins answers is one rule (src/conversation/answers.ts): the conversation while it is in sight, a
    // notification only out of sight. A notification shown straight from notify.ts skips it, so
    // only the places that hand it to Answers (or have no conversation at all) import it.
    files: ['src/**/*.ts'],
    ignores: ['src/ui/notify.ts', 'src/conversation/folderConversation.ts', 'src/conversation/conversations.ts', 'src/extension.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/notify'],
              importNames: ['notification'],
              message:
                "Say it through the folder's answers (FolderConversation.say, Conversations.say): src/conversation/answers.ts decides panel or notification.",
            },
          ],
        },
      ],
    },
  },
  {
    // The core runs the same in the extension host, the unit tests and the interop suite: no
    // `vscode` in the core folders, nor in the pure files of the feature folders (each beside its
    // vscode adapter). (Tried: an `import * as vscode from 'vscode'` put into src/runtime/turnMachine.ts
    // printed "'vscode' import is restricted from being used. The core and the pure files run
    // without VS Code (unit tests, the interop suite): take what you need as a parameter".)
    files: [
      'src/acp/**/*.ts',
      'src/runtime/**/*.ts',
      'src/util/**/*.ts',
      'src/shared/**/*.ts',
      'src/demoAgent/**/*.ts',
      'src/undo/checkpoint/**/*.ts',
      ...PURE_FILES,
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: VSCODE_IN_CORE }] }],
    },
  },
  {
    // The webview is a browser page: it shares only the message types with the extension.
    files: ['media/webview/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'The webview runs in a browser page: no vscode module there.' }],
          patterns: [{ regex: '(^|/)src/(?!shared/)', message: 'The webview imports nothing from src/ but src/shared/ (the typed messages).' }],
        },
      ],
    },
  },
  prettier,
);
