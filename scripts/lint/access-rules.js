// The access rules' lint plugin (`access/*` in eslint.config.mjs): access decisions belong to the
// permission oracle, libs/domain/permissions/, so outside it these rules refuse the two kinds of
// condition that make one, a role comparison and a test of a channel's kind. Each rule knows the
// files it exempts, so its test (test/lint/access-rules.test.ts) proves where it applies.

/** The permission oracle, where both kinds of condition live. */
const PERMISSIONS = /(^|\/)libs\/domain\/permissions\//;

const posixPath = (context) => context.filename.replace(/\\/g, '/');

/**
 * Role comparisons belong to the permission oracle (libs/domain/permissions/roles.ts): elsewhere a
 * rule asks a named predicate (`isRealmAdmin(user)`, `canAdministerUsers(actor)`, ...). Caught: any
 * comparison with a `Role.*` code, an ordering (`<`, `<=`, ...) of a `.role`, and a `.role` tested
 * against a number. `input.role !== target.role` (is the role changing?) is no permission rule.
 * Queries are rules too: a `role` inside a Prisma `where`, or a `role` filter object
 * (`{ lte: Role.ADMINISTRATOR }`) anywhere, belongs to the set-returning functions there.
 */
const COMPARISON = '/^(<|<=|>|>=|==|===|!=|!==)$/';
const ROLE_SELECTORS = [
  `BinaryExpression[operator=${COMPARISON}] > MemberExpression[object.name='Role']`,
  "BinaryExpression[operator=/^[<>]=?$/] > MemberExpression[property.name='role']",
  `BinaryExpression[operator=${COMPARISON}]:has(> MemberExpression[property.name='role']):has(> Literal)`,
  "Property[key.name='where'] Property[key.name='role']",
  "Property[key.name='role'] > ObjectExpression > Property[key.name=/^(lt|lte|gt|gte|not|in|notIn|equals)$/]",
];

const roleComparisons = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      role: 'Role comparisons live in libs/domain/permissions/; ask a named predicate from there.',
    },
  },
  create(context) {
    if (PERMISSIONS.test(posixPath(context))) return {};
    const report = (node) => context.report({ node, messageId: 'role' });
    return Object.fromEntries(ROLE_SELECTORS.map((selector) => [selector, report]));
  },
};

/**
 * A channel's kind (`invite_only`, `is_web_public`, `history_public_to_subscribers`) feeds access
 * rules, so conditions on it live in libs/domain/permissions/ as role comparisons do: elsewhere
 * code asks a kind predicate (`isPrivateChannel(stream)`, channel-kinds.ts) or the access entry
 * point (`requireAccess`, access.ts). Caught: such a field (`stream.inviteOnly`, `row.invite_only`)
 * or its negation tested by `if`, `?:`, `&&`, `||` or `==`; a Prisma `where` on it; SQL text
 * testing the column after AND, OR, NOT, WHERE, ON or WHEN, or a value interpolated there.
 * Copying the field into an answer, a row or an event tests nothing. Exempt besides the oracle:
 * the clients' copies of the server's state (libs/protocol/state-reducer.ts, apps/web), which
 * replay what the server decided.
 */
const KIND_EXEMPT = [PERMISSIONS, /(^|\/)libs\/protocol\/state-reducer\.ts$/, /(^|\/)apps\/web\//];
const KIND_FIELD = new RegExp(
  '^(inviteOnly|isWebPublic|historyPublicToSubscribers' +
    '|invite_only|is_web_public|history_public_to_subscribers)$',
);
const SQL_KEYWORD = '\\b(AND|OR|NOT|WHERE|ON|WHEN)\\s+(NOT\\s+)?\\(?\\s*';
const SQL_KIND_TEST = new RegExp(
  `${SQL_KEYWORD}(\\w+\\.)?(invite_only|is_web_public|history_public_to_subscribers)\\b`,
  'i',
);
const SQL_KEYWORD_AT_END = new RegExp(`${SQL_KEYWORD}$`, 'i');
const PASS_THROUGH = new Set(['ChainExpression', 'TSNonNullExpression', 'TSAsExpression']);
const TESTS = new Set([
  'IfStatement',
  'ConditionalExpression',
  'WhileStatement',
  'DoWhileStatement',
]);

/** Is the value of `node` used as a condition? */
function isTested(node) {
  let child = node;
  let parent = node.parent;
  const negation = (n) => n.type === 'UnaryExpression' && n.operator === '!';
  while (PASS_THROUGH.has(parent.type) || negation(parent)) {
    [child, parent] = [parent, parent.parent];
  }
  if (TESTS.has(parent.type) || parent.type === 'ForStatement') return parent.test === child;
  if (parent.type === 'LogicalExpression') return parent.operator !== '??';
  if (parent.type === 'BinaryExpression') return /^[!=]==?$/.test(parent.operator);
  if (parent.type === 'TemplateLiteral') {
    const before = parent.quasis[parent.expressions.indexOf(child)];
    return SQL_KEYWORD_AT_END.test(before.value.raw);
  }
  return false;
}

const keyName = (node) => (node.type === 'Identifier' ? node.name : node.value);
const inWhere = (node) => {
  for (let up = node.parent; up; up = up.parent) {
    if (up.type === 'Property' && keyName(up.key) === 'where') return true;
  }
  return false;
};

const channelKindConditions = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      kind:
        'Channel-kind conditions live in libs/domain/permissions/; ' +
        'ask a predicate of channel-kinds.ts, or requireAccess.',
    },
  },
  create(context) {
    const file = posixPath(context);
    if (KIND_EXEMPT.some((exempt) => exempt.test(file))) return {};
    const report = (node) => context.report({ node, messageId: 'kind' });
    return {
      MemberExpression(node) {
        if (KIND_FIELD.test(keyName(node.property) ?? '') && isTested(node)) report(node);
      },
      Property(node) {
        if (KIND_FIELD.test(keyName(node.key) ?? '') && inWhere(node)) report(node);
      },
      TemplateElement(node) {
        if (SQL_KIND_TEST.test(node.value.raw)) report(node);
      },
      Literal(node) {
        if (typeof node.value === 'string' && SQL_KIND_TEST.test(node.value)) report(node);
      },
    };
  },
};

module.exports = {
  rules: {
    'role-comparisons': roleComparisons,
    'channel-kind-conditions': channelKindConditions,
  },
};
