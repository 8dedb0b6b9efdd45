import { plainFormatter, type EventFields } from '../formatter';

/** One organization export as `GET /export/realm` and `realm_export` events list it. */
export interface RealmExportRecord {
  id: number;
  acting_user_id: number;
  export_time: number;
  deleted_timestamp: number | null;
  failed_timestamp: number | null;
  export_url: string | null;
  pending: boolean;
}

/** `realm_export`: every export of the organization, sent to its administrators on any change. */
export interface RealmExportEvent {
  type: 'realm_export';
  exports: RealmExportRecord[];
}

export const realmExportEvent = (fields: EventFields<RealmExportEvent>): RealmExportEvent => ({
  ...fields,
  type: 'realm_export',
});

export const realmExportFormatter = plainFormatter<RealmExportEvent>();
