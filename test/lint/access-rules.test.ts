import { RuleTester, type Rule } from 'eslint';
import tseslint from 'typescript-eslint';

/*
 * The access rules of eslint.config.mjs (scripts/lint/access-rules.js): each condition they catch
 * is refused outside libs/domain/permissions/ and allowed inside it, so neither rule can stop
 * working, or start flagging the permission oracle itself, without this test failing.
 */
const { rules } = jest.requireActual<{ rules: Record<string, Rule.RuleModule> }>(
  '../../scripts/lint/access-rules.js',
);

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });

const ORACLE = 'libs/domain/permissions/channel-kinds.ts';
const ACTION = 'libs/domain/messages/send-message.ts';
const ROUTE = 'apps/api/routes/messages.ts';

const kindError = () => [{ messageId: 'kind' }];
const roleError = (count = 1) => Array.from({ length: count }, () => ({ messageId: 'role' }));

const KIND_CONDITIONS = [
  'if (stream.inviteOnly) refuse();',
  'const open = !channel.isWebPublic && member;',
  'const shown = row.history_public_to_subscribers ? all : mine;',
  'while (s?.inviteOnly) next();',
  'const same = stream.inviteOnly === false;',
  'db.stream.findMany({ where: { realmId, inviteOnly: false } });',
  'const q = sql`SELECT id FROM streams s WHERE NOT s.invite_only`;',
  "const q = 'SELECT id FROM streams WHERE realm_id = $1 AND is_web_public';",
  'const q = sql`SELECT id FROM streams WHERE ${stream.isWebPublic}`;',
];

tester.run('access/channel-kind-conditions', rules['channel-kind-conditions'], {
  valid: [
    ...KIND_CONDITIONS.map((code) => ({ code, filename: ORACLE })),
    // The clients' copies of the server's state replay what it decided.
    { code: KIND_CONDITIONS[0], filename: 'libs/protocol/state-reducer.ts' },
    { code: KIND_CONDITIONS[0], filename: 'apps/web/src/state/channels.ts' },
    // Copying the kind into an answer, a row or an event tests nothing.
    { code: 'const dict = { invite_only: stream.inviteOnly };', filename: ACTION },
    { code: 'const kind = row.isWebPublic ?? false;', filename: ACTION },
    { code: 'await insert({ inviteOnly: input.inviteOnly });', filename: ROUTE },
    { code: 'const q = sql`SELECT invite_only AS "inviteOnly" FROM streams`;', filename: ACTION },
    { code: 'if (isPrivateChannel(stream)) refuse();', filename: ACTION },
    // A Windows path is the same file.
    { code: KIND_CONDITIONS[0], filename: 'libs\\domain\\permissions\\channels.ts' },
  ],
  invalid: [
    ...KIND_CONDITIONS.map((code) => ({ code, filename: ACTION, errors: kindError() })),
    ...KIND_CONDITIONS.map((code) => ({ code, filename: ROUTE, errors: kindError() })),
  ],
});

const ROLE_CONDITIONS: [code: string, errors: number][] = [
  // The `Role` code and the ordered `.role` are each caught.
  ['if (user.role <= Role.ADMINISTRATOR) allow();', 2],
  ['const guest = user.role === Role.GUEST;', 1],
  ['const owner = actor.role === 100;', 1],
  ['db.user.findMany({ where: { realmId, role: 200 } });', 1],
  ['const ADMINS = { role: { lte: Role.ADMINISTRATOR } };', 1],
];

tester.run('access/role-comparisons', rules['role-comparisons'], {
  valid: [
    ...ROLE_CONDITIONS.map(([code]) => ({ code, filename: 'libs/domain/permissions/roles.ts' })),
    // Is the role changing? No permission rule.
    { code: 'if (input.role !== target.role) emit();', filename: ACTION },
    { code: 'if (isRealmAdmin(user)) allow();', filename: ROUTE },
    { code: 'const row = { role: input.role };', filename: ACTION },
  ],
  invalid: ROLE_CONDITIONS.flatMap(([code, errors]) =>
    [ACTION, ROUTE].map((filename) => ({ code, filename, errors: roleError(errors) })),
  ),
});
