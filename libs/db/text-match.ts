/**
 * Case-insensitive equality for Prisma `where` clauses. Prisma turns `{ equals, mode:
 * 'insensitive' }` into an unescaped ILIKE, so `_` and `%` in user input match any character
 * (a channel named `a_c` finds `abc`) and a trailing backslash is a database error; its `in`
 * form compares lower-cased values instead.
 */
export const equalsIgnoringCase = (text: string) => ({ in: [text], mode: 'insensitive' as const });
