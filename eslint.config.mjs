import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/**
 * The library order (docs/architecture.md): a library under libs/ imports only libraries of the
 * layers before its own, so no two import each other. Apps may import every library; only
 * apps/all imports other apps. Tests are left out: they drive a library through the whole app.
 */
const LIBRARY_LAYERS = [
  ['core'],
  ['protocol'],
  ['config', 'db', 'log', 'markdown', 'net', 'redis', 'storage'],
  ['stores'],
  ['jobs'],
  ['events'],
  ['metrics'],
  ['domain'],
  ['backup', 'import-export'],
  ['http'],
  ['runtime'],
];
const APPS = ['all', 'api', 'cli', 'events', 'worker'];

// Imports are relative paths (`../../http/x`), so there is one block per folder depth: `up(n)`
// matches an import that climbs n folders, which from depth n reaches libs/ or apps/.
const MAX_DEPTH = 8;
const up = (n) => `^(\\.\\./){${n}}`;
const boundary = (folder, depth, patterns) => ({
  files: [`${folder}/${'*/'.repeat(depth - 1)}*.ts`],
  ignores: ['**/*.test.ts'],
  rules: { 'no-restricted-imports': ['error', { patterns }] },
});
const depths = Array.from({ length: MAX_DEPTH }, (_, i) => i + 1);

const libraryBoundaries = LIBRARY_LAYERS.flatMap((layer, i) => {
  const below = LIBRARY_LAYERS.slice(0, i).flat();
  const forbidden = LIBRARY_LAYERS.flat().filter((lib) => !below.includes(lib));
  const message =
    below.length > 0 ? `may import only libs/{${below.join(',')}}` : 'imports no library';
  return layer.flatMap((lib) => {
    const others = forbidden.filter((other) => other !== lib).join('|');
    return depths.map((depth) =>
      boundary(`libs/${lib}`, depth, [
        {
          regex: `${up(depth)}(\\.\\./libs/)?(${others})(/|$)`,
          message: `libs/${lib} ${message}.`,
        },
        { regex: `${up(depth + 1)}apps(/|$)`, message: 'A library imports no app.' },
      ]),
    );
  });
});

const appBoundaries = APPS.filter((app) => app !== 'all').flatMap((app) => {
  const others = APPS.filter((other) => other !== app).join('|');
  return depths.map((depth) =>
    boundary(`apps/${app}`, depth, [
      { regex: `${up(depth)}(${others})(/|$)`, message: 'Only apps/all imports other apps.' },
    ]),
  );
});

/**
 * Role comparisons belong to the permission oracle (libs/domain/permissions/roles.ts): elsewhere a
 * rule asks a named predicate (`isRealmAdmin(user)`, `canAdministerUsers(actor)`, ...). Caught: any
 * comparison with a `Role.*` code, an ordering (`<`, `<=`, ...) of a `.role`, and a `.role` tested
 * against a number. `input.role !== target.role` (is the role changing?) is no permission rule.
 * Queries are rules too: a `role` inside a Prisma `where`, or a `role` filter object
 * (`{ lte: Role.ADMINISTRATOR }`) anywhere, belongs to the set-returning functions there.
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
        "Property[key.name='where'] Property[key.name='role']",
        "Property[key.name='role'] > ObjectExpression > Property[key.name=/^(lt|lte|gt|gte|not|in|notIn|equals)$/]",
      ].map((selector) => ({ selector, message: ROLE_MESSAGE })),
    ],
  },
};

/**
 * Domain functions take their context first (`ctx`, `db` or `tx`, `events`) and at most three
 * other arguments; past that, one options object (docs/architecture.md). ESLint's max-params
 * cannot tell the context from the rest, so this counts the arguments after it.
 */
const CONTEXT_PARAMETERS = new Set(['ctx', 'db', 'tx', 'events']);
const MAX_POSITIONAL_ARGUMENTS = 3;
const positionalArguments = {
  meta: {
    type: 'suggestion',
    schema: [],
    messages: {
      tooMany:
        '{{count}} arguments after the context; take one options object (docs/architecture.md).',
    },
  },
  create(context) {
    const isContext = (param) => {
      const name = param.type === 'AssignmentPattern' ? param.left.name : param.name;
      return CONTEXT_PARAMETERS.has(name);
    };
    const check = (node) => {
      const first = node.params.findIndex((param) => !isContext(param));
      const count = first === -1 ? 0 : node.params.length - first;
      if (count > MAX_POSITIONAL_ARGUMENTS) {
        context.report({ node, messageId: 'tooMany', data: { count } });
      }
    };
    return {
      FunctionDeclaration: check,
      FunctionExpression: check,
      ArrowFunctionExpression: check,
      TSDeclareFunction: check,
    };
  },
};
const domainArguments = {
  files: ['libs/domain/**/*.ts'],
  ignores: ['**/*.test.ts'],
  plugins: { domain: { rules: { 'positional-arguments': positionalArguments } } },
  rules: { 'domain/positional-arguments': 'error' },
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
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
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
  {
    // Type-aware rules: a promise is awaited, returned, or marked `void` where it is left to run.
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // A `default` may stand for the members a switch does not name; without one, every member.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
    },
  },
  roleComparisons,
  domainArguments,
  ...libraryBoundaries,
  ...appBoundaries,
);
