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
          allowDefaultProject: ['vitest.shared.ts'],
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
    files: ['**/*.test.ts', '**/test/**/*.ts', 'packages/service-kit/src/*-suite.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    // Runtime code must never reach a test tool. The files in `ignores` are the test harness that still
    // lives beside runtime code and is exported only through test entry points; nothing else may join them.
    files: ['packages/*/src/**/*.{ts,tsx}', 'services/*/src/**/*.{ts,tsx}'],
    ignores: [
      'packages/db/src/server-requirements.ts',
      'packages/service-kit/src/base-app-suite.ts',
      'packages/service-kit/src/browser-testing.ts',
      'packages/service-kit/src/cli-expectations.ts',
      'packages/service-kit/src/listener-suite.ts',
      'packages/service-kit/src/openapi-expectations.ts',
      'packages/service-kit/src/service-process-suite.ts',
    ],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'vitest', message: 'Runtime code may not import a test tool; put test helpers in a test entry point.' },
          { name: 'playwright-core', message: 'Runtime code may not import a test tool; put test helpers in a test entry point.' },
        ],
        patterns: [{ group: ['vitest/*', '@playwright/*', 'playwright-core/*'], message: 'Runtime code may not import a test tool.' }],
      }],
    },
  },
);
