import { badRequest } from '../../core/errors';

export const keyDoesNotExist = () => badRequest('Key does not exist.');
