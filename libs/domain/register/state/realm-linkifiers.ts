import { wants, type StateProvider } from './types';

/**
 * `realm_linkifiers` (ordered), and `realm_filters`, always empty as in Zulip since feature level
 * 176. Clients without the linkifier_url_template capability get no linkifiers: they would read
 * the RFC 6570 templates as URL format strings.
 */
export const realmLinkifiersState: StateProvider = {
  eventTypes: ['realm_linkifiers', 'realm_filters'],
  async fetch({ ctx, realm, params, capabilities }) {
    const out: Record<string, unknown> = {};
    if (wants(params, 'realm_filters')) out.realm_filters = [];
    if (!wants(params, 'realm_linkifiers')) return out;
    if (!capabilities.linkifier_url_template) {
      out.realm_linkifiers = [];
      return out;
    }
    const rows = await ctx.db.realmFilter.findMany({
      where: { realmId: realm.id },
      orderBy: [{ order: 'asc' }, { id: 'asc' }],
    });
    out.realm_linkifiers = rows.map((r) => ({
      id: r.id,
      pattern: r.pattern,
      url_template: r.urlTemplate,
    }));
    return out;
  },
};
