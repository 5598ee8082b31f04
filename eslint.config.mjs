import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'coverage/', 'dist/', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Use node:crypto for anything a player could guess.' },
      ],
    },
  },
  {
    // A function longer than a screen is several named steps waiting to be told apart.
    files: [
      'core/**/*.ts',
      'lambdas/**/*.ts',
      'local/**/*.ts',
      'containers/**/*.ts',
      'cdk/**/*.ts',
      'scripts/**/*.ts',
      'cli/**/*.ts',
      'client/**/*.ts',
      'console/**/*.ts',
      'test/bench/**/*.ts',
    ],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-restricted-properties': 'off' },
  },
);
