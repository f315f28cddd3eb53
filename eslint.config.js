// One lint setup for the whole repository: typescript-eslint's type-aware rules,
// because the bugs that matter in services (floating promises, unsafe any) need types.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/.data/**', '**/coverage/**', '**/drizzle/meta/**', 'infra/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['vitest.shared.ts', 'vitest.global-setup.ts'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      // Fastify's async plugin style (`async (app) => { app.get(...) }`) has nothing to await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    // Plain scripts are linted without types (no TypeScript project needs to know them).
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: Object.fromEntries(
        ['process', 'console', 'URL', 'URLSearchParams', 'Buffer', 'performance', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'fetch', 'AbortSignal'].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['**/*.test.ts', '**/test/**/*.ts', 'packages/*/testing/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    // Runtime code must never reach a test tool. Test harness lives in each package's `testing/`
    // folder (exported as `<package>/testing`), so no file under `src/` needs an exemption.
    files: ['packages/*/src/**/*.{ts,tsx}', 'services/*/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'vitest', message: 'Runtime code may not import a test tool; put test helpers in a test entry point.' },
          { name: 'playwright-core', message: 'Runtime code may not import a test tool; put test helpers in a test entry point.' },
        ],
        patterns: [
          { group: ['vitest/*', '@playwright/*', 'playwright-core/*'], message: 'Runtime code may not import a test tool.' },
          { group: ['@svc/*/testing', '@svc/*/browser-testing'], message: 'Runtime code may not import test harness.' },
        ],
      }],
    },
  },
);
