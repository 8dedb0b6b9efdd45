import { at } from '../../../../libs/core/at';
import type { Term } from './parse';

export interface ApiTerm {
  operator: string;
  operand: string | number | number[];
  negated?: boolean;
}

export interface Lookup {
  me: number;
  channelId(name: string): number | undefined;
  userId(emailOrName: string): number | undefined;
}

/**
 * The search's terms in `GET /messages`'s narrow form: channels and people by ID where the
 * reader knows them (the server also takes names and emails, and says which it does not know).
 */
export function apiTerms(terms: Term[], lookup: Lookup): ApiTerm[] {
  return terms.map(({ operator, operand, negated }) => {
    const out = (value: ApiTerm['operand']): ApiTerm =>
      negated ? { operator, operand: value, negated } : { operator, operand: value };
    switch (operator) {
      case 'channel':
        return out(lookup.channelId(operand) ?? operand);
      case 'sender':
        return out(operand === 'me' ? lookup.me : (lookup.userId(operand) ?? operand));
      case 'dm':
      case 'dm-including': {
        const ids = operand
          .split(',')
          .map((p) => (p === 'me' ? lookup.me : lookup.userId(p.trim())));
        if (ids.every((id): id is number => id !== undefined))
          return out(operator === 'dm' ? ids : at(ids, 0));
        return out(operand);
      }
      default:
        return out(operand);
    }
  });
}
