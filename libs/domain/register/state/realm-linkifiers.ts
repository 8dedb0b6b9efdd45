import type { StateProvider } from './types';

/** `realm_linkifiers` (ordered), and the legacy `realm_filters` triples of feature levels before 54. */
export const realmLinkifiersState: StateProvider = {
  eventTypes: ['realm_linkifiers', 'realm_filters'],
  async fetch({ ctx, realm }) {
    const rows = await ctx.db.realmFilter.findMany({
      where: { realmId: realm.id },
      orderBy: [{ order: 'asc' }, { id: 'asc' }],
    });
    return {
      realm_linkifiers: rows.map((r) => ({
        id: r.id,
        pattern: r.pattern,
        url_template: r.urlTemplate,
      })),
      realm_filters: [],
    };
  },
};
