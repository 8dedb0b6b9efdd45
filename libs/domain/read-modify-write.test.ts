import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The rule of docs/architecture.md, "Read-modify-write: one transaction, the row locked", as far
 * as the source shows it. In every function of libs/domain that works in a transaction (a
 * parameter named `tx`, which `inTransaction`'s callbacks and the `...Within` helpers have):
 *
 * - a row read with `tx.<model>.find...` and then written with `tx.<model>.update/upsert/delete`
 *   is locked first in that function (`lockRow(s)`, `lockKey`, `accessLocked...`, or a raw
 *   `FOR UPDATE` / `FOR NO KEY UPDATE`), or the function is listed below with the reason its
 *   write does not depend on what it read;
 * - and no action reads a message or checks access to it outside its transaction
 *   (`accessMessage(ctx.db, ...)` in a function that then calls `inTransaction`).
 */
const ROOT = path.join(__dirname);

/** `file:function` -> why its write does not carry what it read over to the row. */
const WRITES_NOT_FROM_READS: Record<string, string> = {
  'attachments/claim-attachments.ts:claimAttachments':
    'called for a message being written: a new one, or one its edit holds locked',
  'groups/system-groups.ts:setRoleGroupMembership':
    'called for a user being created, or whose role change holds the row',
  'messages/addressees.ts:directRecipientId':
    'on the send path; the update only fills in a recipient id, the same from any run',
  'realms/create-realm.ts:createRealm/callback': 'a new organization, which no one else sees yet',
  'subscriptions/insert-subscriptions.ts:insertSubscriptions':
    "callers hold the users' rows locked (subscribe) or create the users",
};

const READ = /^(findFirst|findFirstOrThrow|findUnique|findUniqueOrThrow|findMany)$/;
const WRITE = /^(update|updateMany|upsert|delete|deleteMany)$/;
const LOCKING_CALLS = /^(lockRow|lockRows|lockKey|lockEmail|accessLocked\w*)$/;
const LOCKING_SQL = /FOR (NO KEY )?UPDATE/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

type FunctionNode = ts.FunctionLikeDeclaration;

const functionName = (fn: FunctionNode): string => {
  if (fn.name && ts.isIdentifier(fn.name)) return fn.name.text;
  const parent = fn.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  // A callback: named after the function that holds it.
  let outer: ts.Node = parent;
  while (outer && !ts.isFunctionLike(outer)) outer = outer.parent;
  return outer ? `${functionName(outer as FunctionNode)}/callback` : '<callback>';
};

/** `tx.model.method(` -> [model, method]. */
function prismaCall(call: ts.CallExpression): [string, string] | null {
  const callee = call.expression;
  if (!ts.isPropertyAccessExpression(callee)) return null;
  const model = callee.expression;
  if (!ts.isPropertyAccessExpression(model)) return null;
  if (!ts.isIdentifier(model.expression) || model.expression.text !== 'tx') return null;
  return [model.name.text, callee.name.text];
}

const calleeName = (call: ts.CallExpression): string =>
  ts.isIdentifier(call.expression)
    ? call.expression.text
    : ts.isPropertyAccessExpression(call.expression)
      ? call.expression.name.text
      : '';

/** The function's own statements: nested functions with their own `tx` are checked apart. */
function walkOwn(node: ts.Node, visit: (n: ts.Node) => void): void {
  ts.forEachChild(node, (child) => {
    if (ts.isFunctionLike(child) && hasTxParameter(child as FunctionNode)) return;
    visit(child);
    walkOwn(child, visit);
  });
}

const hasTxParameter = (fn: FunctionNode): boolean =>
  fn.parameters.some((p) => ts.isIdentifier(p.name) && p.name.text === 'tx');

export interface Finding {
  where: string;
  problem: string;
}

/** What the rule finds in one file's text. */
export function findings(file: string, text: string): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: Finding[] = [];
  const visitFunction = (fn: FunctionNode) => {
    const where = `${file}:${functionName(fn)}`;
    if (hasTxParameter(fn) && fn.body) {
      const readModels = new Set<string>();
      let locked = false;
      walkOwn(fn.body, (n) => {
        if (ts.isTaggedTemplateExpression(n) && LOCKING_SQL.test(n.template.getText())) {
          locked = true;
        }
        if (!ts.isCallExpression(n)) return;
        if (LOCKING_CALLS.test(calleeName(n))) locked = true;
        const call = prismaCall(n);
        if (!call) return;
        const [model, method] = call;
        if (READ.test(method)) readModels.add(model);
        if (
          WRITE.test(method) &&
          readModels.has(model) &&
          !locked &&
          !WRITES_NOT_FROM_READS[where]
        ) {
          found.push({
            where,
            problem: `reads tx.${model} and writes it back (${method}) without locking it first`,
          });
        }
      });
    }
    if (fn.body) {
      let opensTransaction = false;
      const outsideReads: string[] = [];
      walkOwn(fn.body, (n) => {
        if (!ts.isCallExpression(n)) return;
        const name = calleeName(n);
        if (name === 'inTransaction') opensTransaction = true;
        const [first] = n.arguments;
        if (name === 'accessMessage' && first && first.getText() === 'ctx.db')
          outsideReads.push(name);
      });
      if (opensTransaction && outsideReads.length) {
        found.push({ where, problem: 'checks access to a message outside its transaction' });
      }
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as FunctionNode).body) visitFunction(node as FunctionNode);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('read-modify-write in libs/domain', () => {
  it('locks a row before reading it to write it back, inside the transaction', () => {
    const all = sourceFiles(ROOT).flatMap((file) =>
      findings(path.relative(ROOT, file), readFileSync(file, 'utf8')),
    );
    expect(all).toEqual([]);
  });

  it('finds the shapes it is meant to find', () => {
    const unlocked = `
      async function bump(tx: Tx, id: number) {
        const row = await tx.draft.findUnique({ where: { id } });
        await tx.draft.update({ where: { id }, data: { n: row.n + 1 } });
      }`;
    expect(findings('x.ts', unlocked)).toEqual([
      { where: 'x.ts:bump', problem: expect.stringContaining('tx.draft') },
    ]);
    const locked = unlocked.replace('const row', "await lockRow(tx, 'drafts', id);\n const row");
    expect(findings('x.ts', locked)).toEqual([]);
    const callback = `
      export async function edit(ctx: AppContext, id: number) {
        const { message } = await accessMessage(ctx.db, user, id);
        return inTransaction(ctx, async (tx, events) => {
          const m = await tx.message.findFirst({ where: { id } });
          await tx.message.update({ where: { id }, data: { content: m.content + '!' } });
        });
      }`;
    expect(findings('y.ts', callback).map((f) => f.where)).toEqual([
      'y.ts:edit',
      'y.ts:edit/callback',
    ]);
  });
});
