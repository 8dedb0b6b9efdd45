import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { createProfileField } from '../../../libs/domain/profile-fields/create-profile-field';
import { deleteProfileField } from '../../../libs/domain/profile-fields/delete-profile-field';
import { listProfileFields } from '../../../libs/domain/profile-fields/list-profile-fields';
import { reorderProfileFields } from '../../../libs/domain/profile-fields/reorder-profile-fields';
import { updateProfileField } from '../../../libs/domain/profile-fields/update-profile-field';
import type { FieldSettings } from '../../../libs/domain/profile-fields/validate-profile-field';
import { removeOwnProfileData } from '../../../libs/domain/profile-fields/remove-own-profile-data';
import { updateOwnProfileData } from '../../../libs/domain/profile-fields/update-own-profile-data';
import { profileDataUpdate } from '../../../libs/domain/profile-fields/set-values';
import type { ParamsOf } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

const fieldSpec = {
  name: P.string(),
  hint: P.string(),
  field_data: P.dict(),
  display_in_profile_summary: P.bool(),
  required: P.bool(),
  editable_by_user: P.bool(),
};

const settingsOf = (p: ParamsOf<typeof fieldSpec>): FieldSettings => ({
  name: p.name,
  hint: p.hint,
  fieldData: p.field_data,
  displayInProfileSummary: p.display_in_profile_summary,
  required: p.required,
  editableByUser: p.editable_by_user,
});

const fieldId = { field_id: P.int().required() };

export function profileFieldRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/realm/profile_fields',
    authed(ctx, {}, async ({ realm }) => ({
      custom_fields: await listProfileFields(ctx.db, realm.id),
    })),
  );
  router.post(
    '/realm/profile_fields',
    authed(
      ctx,
      { ...fieldSpec, field_type: P.int().required() },
      async ({ user, realm, params }) => ({
        id: await createProfileField(ctx, {
          actor: user,
          realm,
          type: params.field_type,
          settings: settingsOf(params),
        }),
      }),
    ),
  );
  router.patch(
    '/realm/profile_fields',
    authed(ctx, { order: P.array(P.int()).required() }, async ({ user, realm, params }) => {
      await reorderProfileFields(ctx, { actor: user, realm, order: params.order });
    }),
  );
  router.patch(
    '/realm/profile_fields/:field_id',
    authed(ctx, { ...fieldSpec, ...fieldId }, async ({ user, realm, params }) => {
      await updateProfileField(ctx, {
        actor: user,
        realm,
        id: params.field_id,
        settings: settingsOf(params),
      });
    }),
  );
  router.delete(
    '/realm/profile_fields/:field_id',
    authed(ctx, fieldId, async ({ user, realm, params }) => {
      await deleteProfileField(ctx, { actor: user, realm, id: params.field_id });
    }),
  );
  router.patch(
    '/users/me/profile_data',
    authed(
      ctx,
      { data: P.array(profileDataUpdate).required() },
      async ({ user, realm, params }) => {
        await updateOwnProfileData(ctx, { user, realm, data: params.data });
      },
    ),
  );
  router.delete(
    '/users/me/profile_data',
    authed(ctx, { data: P.array(P.int()).required() }, async ({ user, realm, params }) => {
      await removeOwnProfileData(ctx, { user, realm, fieldIds: params.data });
    }),
  );
}
