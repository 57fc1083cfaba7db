import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', '.corridor/**', 'coverage/**', 'packages/*/dist/**', 'packages/*/src/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.name='parseFloat']", message: 'No floating point on money: use lib/money.' },
      ],
    },
  },
  {
    // The pages' one browser script (src/faces/web/assets): browser globals, no build step.
    files: ['src/faces/web/assets/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { document: 'readonly', window: 'readonly', navigator: 'readonly', Element: 'readonly', HTMLFormElement: 'readonly', DOMParser: 'readonly', fetch: 'readonly', setTimeout: 'readonly', Intl: 'readonly', Date: 'readonly', Blob: 'readonly', FormData: 'readonly', BigInt: 'readonly', CustomEvent: 'readonly', isNaN: 'readonly' } },
  },
);
