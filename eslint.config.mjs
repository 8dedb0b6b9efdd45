import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/**
 * Role comparisons belong to the permission oracle (libs/domain/permissions/roles.ts): elsewhere a
 * rule asks a named predicate (`isRealmAdmin(user)`, `canAdministerUsers(actor)`, ...). Caught: any
 * comparison with a `Role.*` code, an ordering (`<`, `<=`, ...) of a `.role`, and a `.role` tested
 * against a number. `input.role !== target.role` (is the role changing?) is no permission rule.
 * Tests are exempt: they set users up by role.
 */
const COMPARISON = '/^(<|<=|>|>=|==|===|!=|!==)$/';
const ROLE_MESSAGE =
  'Role comparisons live in libs/domain/permissions/; ask a named predicate from there.';
const roleComparisons = {
  files: ['apps/**/*.ts', 'libs/**/*.ts'],
  ignores: ['libs/domain/permissions/**', '**/*.test.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      ...[
        `BinaryExpression[operator=${COMPARISON}] > MemberExpression[object.name='Role']`,
        "BinaryExpression[operator=/^[<>]=?$/] > MemberExpression[property.name='role']",
        `BinaryExpression[operator=${COMPARISON}]:has(> MemberExpression[property.name='role']):has(> Literal)`,
      ].map((selector) => ({ selector, message: ROLE_MESSAGE })),
    ],
  },
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'generated/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['scripts/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', __dirname: 'readonly', process: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['apps/cli/**', 'bench/**', 'test/**'],
    rules: { 'no-console': 'off' },
  },
  roleComparisons,
);
