// Lint: type-aware rules that catch floating promises, plus the import
// boundaries from STYLE.md (components talk only through the API client;
// nothing but the API server touches storage).
import tseslint from 'typescript-eslint';

const components = ['controllers', 'scheduler', 'kubelet', 'proxy', 'dns', 'netpol', 'podnet', 'simulate'];

/** Forbid imports of the given top-level src folders from a folder. */
function boundary(folder, forbidden) {
  return {
    files: [`src/${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: forbidden.map((f) => ({
            // kubernetes-types/storage/v1 is the storage.k8s.io API group, not src/storage
            group: [`**/${f}/*`, `**/${f}`, '!kubernetes-types/**'],
            message: `src/${folder} must not import src/${f} (see STYLE.md dependency direction)`,
          })),
        },
      ],
    },
  };
}

export default tseslint.config(
  { ignores: ['node_modules/**', '.skiff/**', 'eslint.config.js', 'bin/**'] },
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-throw-literal': 'error',
    },
  },
  boundary('api', ['machinery', 'base', 'storage', 'apiserver', 'client', 'cli', ...components]),
  boundary('machinery', ['base', 'storage', 'apiserver', 'client', 'cli', ...components]),
  // base: what every daemon shares (HTTP serving with health and metrics, Clock); it builds on machinery and api only
  boundary('base', ['trace', 'storage', 'apiserver', 'client', 'cli', ...components]),
  // trace: causal spans and the journey store, shared by the API server, the client and every component (its time comes from base's Clock)
  boundary('trace', ['storage', 'apiserver', 'client', 'cli', ...components]),
  boundary('storage', ['apiserver', 'client', 'cli', ...components]),
  boundary('apiserver', ['client', 'cli', ...components]),
  boundary('client', ['storage', 'apiserver', 'cli', ...components]),
  ...components.map((c) => boundary(c, ['storage', 'apiserver', 'cli', ...components.filter((o) => o !== c)])),
);
