// ESLint for the extension: the repository's rules, typed against this package's tsconfig, bundles left out.
import rootConfig from '../../eslint.config.js';

export default [
  ...rootConfig,
  { ignores: ['dist/**', 'node_modules/**', '*.vsix'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
  },
];
