// ESLint flat config: typescript-eslint's type-aware rules for the TypeScript sources and tests
// (the type information comes from tsconfig.json through the project service), plain recommended
// rules for the JavaScript launchers, scripts and the webview script. `npm run lint` allows no warning.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', 'out/', 'out-*/', '.cache/', '.vscode-test/', 'test-output/', '.pk4-out/'],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      // `import X = require('web-tree-sitter')` is deliberate: it keeps esbuild on the CommonJS entry.
      '@typescript-eslint/no-require-imports': ['error', { allowAsImport: true }],
      // An async function without await still turns a throw into a rejection, which the async
      // interfaces (ChunkParser.parse, the worker's request handlers) rely on.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['media/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, acquireVsCodeApi: 'readonly' } },
  },
  {
    files: ['test/vscode/fakeModel/extension.js', 'bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
