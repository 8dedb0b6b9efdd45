import { generateApiKey } from '../users/api-keys';

/** The outgoing-webhook `token`: fixed per bot, 32 alphanumeric characters. */
export const generateServiceToken = (): string => generateApiKey();

export const ServiceInterface = { NATIVE: 1, SLACK: 2 } as const;
export type ServiceInterfaceCode = (typeof ServiceInterface)[keyof typeof ServiceInterface];
