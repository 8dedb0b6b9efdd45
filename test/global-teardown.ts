import { dropDatabase, TEMPLATE_DB, withAdminClient } from './databases';

export default async function globalTeardown(): Promise<void> {
  await withAdminClient((client) => dropDatabase(client, TEMPLATE_DB));
}
