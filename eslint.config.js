// Lint for a library: typescript-eslint's type-checked rules over src/, scripts and tests
// linted for correctness only. Formatting is Prettier's job (`npm run format:check`), not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The few Node globals the plain-JS scripts use (the `globals` package is not a dependency).
const node = Object.fromEntries(
  ['process', 'console', 'URL', 'fetch', 'setTimeout', 'clearTimeout', 'Buffer', 'module', 'require', '__dirname'].map((n) => [
    n,
    'readonly',
  ]),
);

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'docs/api/', 'node_modules/', '.svc-test-*/', 'scripts/*.d.ts'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.strictTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Messages interpolate numbers and checked values on purpose; `String(x)` everywhere adds nothing.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // Hostile-input code checks "impossible" shapes on purpose (a caller may pass anything at runtime).
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // `x === true` is deliberate where x may be anything at runtime: `{ allowed: 'yes' }` must not allow.
      '@typescript-eslint/no-unnecessary-boolean-literal-compare': 'off',
      // `_`-prefixed names mark parameters kept for an interface's shape.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Private class fields are how opaque objects hide their state; a no-op class body is not "extraneous".
      '@typescript-eslint/no-extraneous-class': 'off',
      // `void` in unions is how the store interface says "may return nothing or a promise".
      '@typescript-eslint/no-invalid-void-type': 'off',
      // Style only: `(x) => void fn(x)` vs braces is a formatting choice, not a bug.
      '@typescript-eslint/no-confusing-void-expression': 'off',
      // Input checks reject control characters with a regex on purpose (S7, C4 output escaping).
      'no-control-regex': 'off',
      // Messages convert values whose runtime type a hostile caller controls (an error subclass's message getter).
      '@typescript-eslint/no-unnecessary-type-conversion': 'off',
    },
  },
  {
    // pg types every row as `any`; rows are read field by field and checked by the record codec.
    files: ['src/stores/postgres/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
  {
    // The reference server is code users copy: it imports what a user's server can (`svc-auth`, its subpaths,
    // node builtins, packages), never a file of the library. dependency-cruiser checks the same on the
    // resolved files (rule reference-server-uses-the-public-api); this says it in the editor.
    files: ['src/app/server/**/*.ts'],
    ignores: ['src/app/server/input.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../*', '**/src/*'],
              message: "The reference server imports only 'svc-auth', 'svc-auth/<subpath>' and its own files.",
            },
          ],
        },
      ],
    },
  },
  {
    // Its input alone also reads bodies with the HTTP layer's edge kit (rule reference-server-reads-bodies-with-the-edge-kit).
    files: ['src/app/server/input.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./(?!\\.\\./http$)|/src/',
              message: "The reference server's input imports only 'svc-auth', 'svc-auth/<subpath>', its own files and '../../http'.",
            },
          ],
        },
      ],
    },
  },
  {
    // Examples are what users copy: Express 5 types a route parameter as `string | string[] | undefined`,
    // and the natural `${req.params.org}/${req.params.repo}` is safe (authorize decides anything
    // malformed as `invalid`). Framework handlers are async by the framework's contract.
    files: ['examples/**/*.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests and benches: correctness rules stay, the type-strictness ones that fight test doubles go.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-empty-function': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/no-deprecated': 'off',
      '@typescript-eslint/no-dynamic-delete': 'off',
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/no-unnecessary-type-parameters': 'off',
      '@typescript-eslint/use-unknown-in-catch-callback-variable': 'off',
      '@typescript-eslint/no-misused-promises': 'off',
      '@typescript-eslint/await-thenable': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      '@typescript-eslint/restrict-plus-operands': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/no-empty-object-type': 'off',
      // Hostile-input tests forge instances and spread strings on purpose.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      '@typescript-eslint/no-misused-spread': 'off',
      'no-useless-assignment': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: node },
    rules: { 'no-control-regex': 'off' },
  },
);
