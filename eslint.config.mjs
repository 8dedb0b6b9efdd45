import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import accessPlugin from './scripts/lint/access-rules.js';

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
 * Access decisions belong to the permission oracle, libs/domain/permissions/: outside it, role
 * comparisons and conditions on a channel's kind are refused (scripts/lint/access-rules.js, which
 * says what each catches and which files it exempts; test/lint/access-rules.test.ts proves it).
 * Tests are exempt: they set users and channels up by role and kind.
 */
const accessRules = {
  files: ['apps/**/*.ts', 'libs/**/*.ts'],
  ignores: ['**/*.test.ts'],
  plugins: { access: accessPlugin },
  rules: {
    'access/role-comparisons': 'error',
    'access/channel-kind-conditions': 'error',
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
  ...tseslint.configs.recommendedTypeChecked,
  {
    // recommendedTypeChecked's rules the code does not meet yet, each off with its reason and the
    // reports `eslint .` gave on 2026-11-28 (docs/architecture.md); the rest of the set holds.
    rules: {
      // `any` comes from libraries (Express's req.body, supertest's res.body, JSON.parse, raw
      // Prisma rows) and is checked by the Joi schemas at the boundary; no-explicit-any keeps it
      // out of our own declarations. 1,056 reports, 828 of them in tests.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // 73 assertions in 44 files: `--fix` removes them, but across files others were editing.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // Async functions that implement a promise-returning interface without awaiting (route
      // handlers, test doubles): 78 reports, 65 in tests.
      '@typescript-eslint/require-await': 'off',
      // Values stringified on purpose, typed wider than they are (a form field, a Prisma-AST
      // value, a `display_recipient` known to be a name): 20 reports, 11 of them in apps/web.
      '@typescript-eslint/no-base-to-string': 'off',
      // On, but a caught value may be passed on as it came (`reject(err)` with `err: unknown`),
      // as `throw` may rethrow it.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
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
    // The few plain scripts the sign-in pages load (the desktop app's page).
    files: ['apps/api/static/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        crypto: 'readonly',
        TextDecoder: 'readonly',
      },
    },
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
  {
    // Plain JavaScript (scripts/, this file, the sign-in pages' scripts) and the web build's
    // Vite files (.mts) belong to no TypeScript project, so the rules that need types are off.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs', '**/*.mts'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // No function over 80 lines, blank lines and comments aside (docs/architecture.md); tests
    // left out. The web client's components count too: a long one splits into hooks and parts.
    files: ['apps/**/*.ts', 'apps/**/*.tsx', 'libs/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.cases.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  accessRules,
  domainArguments,
  ...libraryBoundaries,
  ...appBoundaries,
);
