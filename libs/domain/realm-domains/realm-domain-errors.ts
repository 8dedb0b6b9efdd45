import { badRequest } from '../../core/errors';

export const noEntry = (domain: string) => badRequest(`No entry found for domain ${domain}.`);
