import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import {
  requireWebScheme,
  templateVariableNames,
  UrlTemplateError,
} from '../../markdown/url-template';
import type { AppContext } from '../../core/context';
import { requireRealmAdmin } from '../permissions/users';
import { sendPlaygrounds } from './list-playgrounds';

/** Zulip's RealmPlayground.MAX_PYGMENTS_LANGUAGE_LENGTH. */
export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;

// Lexer names are not limited to Pygments' own list (custom "languages" may get a playground),
// only to the characters a code block's language may use; `+-.` is a range, so ',' is allowed too.
const PYGMENTS_LANGUAGE = /^[ a-zA-Z0-9_+,\-./#]*$/;

/** Zulip reports model validation failures with the field each message belongs to. */
const invalid = (field: string, msg: string) => badRequest(msg, { errors: { [field]: [msg] } });

/** The model checks in Zulip's order: each field, then the template's variables. */
function checkPlayground(name: string, pygmentsLanguage: string, urlTemplate: string): void {
  const blank = 'This field cannot be blank.';
  if (urlTemplate === '') throw invalid('url_template', blank);
  let variables: string[];
  try {
    variables = templateVariableNames(urlTemplate);
    requireWebScheme(urlTemplate);
  } catch (err) {
    if (err instanceof UrlTemplateError) throw invalid('url_template', 'Invalid URL template.');
    throw err;
  }
  if (name === '') throw invalid('name', blank);
  if (pygmentsLanguage === '') throw invalid('pygments_language', blank);
  if (!variables.includes('code')) {
    throw invalid('__all__', 'Missing the required variable "code" in the URL template');
  }
  if (variables.length !== 1) {
    throw invalid('__all__', '"code" should be the only variable present in the URL template');
  }
}

export interface AddPlaygroundInput {
  actor: User;
  realm: Realm;
  name: string;
  pygmentsLanguage: string;
  urlTemplate: string;
}

/** `POST /realm/playgrounds`: returns the new playground's ID. */
export async function addPlayground(ctx: AppContext, input: AddPlaygroundInput): Promise<number> {
  requireRealmAdmin(input.actor);
  if (!PYGMENTS_LANGUAGE.test(input.pygmentsLanguage)) {
    throw badRequest('Invalid characters in pygments language');
  }
  const name = input.name.trim();
  const pygmentsLanguage = input.pygmentsLanguage.trim();
  const urlTemplate = input.urlTemplate.trim();
  checkPlayground(name, pygmentsLanguage, urlTemplate);
  return inTransaction(ctx, async (tx, events) => {
    const clash = await tx.realmPlayground.findFirst({
      where: { realmId: input.realm.id, name, pygmentsLanguage },
      select: { id: true },
    });
    if (clash) {
      throw invalid(
        '__all__',
        'Realm playground with this Realm, Pygments language and Name already exists.',
      );
    }
    const row = await tx.realmPlayground.create({
      data: { realmId: input.realm.id, name, pygmentsLanguage, urlTemplate },
    });
    await sendPlaygrounds(tx, events, input.realm.id);
    return row.id;
  });
}
