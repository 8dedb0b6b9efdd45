import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import {
  createProfileField,
  deleteProfileField,
  listProfileFields,
  reorderProfileFields,
  updateProfileField,
  type FieldSettings,
} from '../../../libs/domain/profile-fields/profile-fields';
import {
  removeOwnProfileData,
  updateOwnProfileData,
} from '../../../libs/domain/profile-fields/own-profile-data';
import type { ProfileDataUpdate } from '../../../libs/domain/profile-fields/set-values';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

interface FieldParams {
  name?: string;
  hint?: string;
  field_data?: Record<string, unknown>;
  display_in_profile_summary?: boolean;
  required?: boolean;
  editable_by_user?: boolean;
}

const fieldSpec = {
  name: P.string(Joi.string().allow('')),
  hint: P.string(Joi.string().allow('')),
  field_data: P.json(Joi.object().unknown(true)),
  display_in_profile_summary: P.bool(),
  required: P.bool(),
  editable_by_user: P.bool(),
};

const settingsOf = (p: FieldParams): FieldSettings => ({
  name: p.name,
  hint: p.hint,
  fieldData: p.field_data,
  displayInProfileSummary: p.display_in_profile_summary,
  required: p.required,
  editableByUser: p.editable_by_user,
});

const fieldId = { field_id: P.int(Joi.number().integer().required()) };

const profileData = P.json(
  Joi.array()
    .items(
      Joi.object({
        id: Joi.number().integer().required(),
        value: Joi.alternatives()
          .try(Joi.string().allow(''), Joi.array().items(Joi.number().integer()))
          .allow(null)
          .required(),
      }),
    )
    .required(),
);

export function profileFieldRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/realm/profile_fields',
    authed(ctx, {}, async ({ realm }) => ({
      custom_fields: await listProfileFields(ctx.db, realm.id),
    })),
  );
  router.post(
    '/realm/profile_fields',
    authed<FieldParams & { field_type: number }>(
      ctx,
      { ...fieldSpec, field_type: P.int(Joi.number().integer().required()) },
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
    authed<{ order: number[] }>(
      ctx,
      { order: P.json(Joi.array().items(Joi.number().integer()).required()) },
      async ({ user, realm, params }) => {
        await reorderProfileFields(ctx, { actor: user, realm, order: params.order });
      },
    ),
  );
  router.patch(
    '/realm/profile_fields/:field_id',
    authed<FieldParams & { field_id: number }>(
      ctx,
      { ...fieldSpec, ...fieldId },
      async ({ user, realm, params }) => {
        await updateProfileField(ctx, {
          actor: user,
          realm,
          id: params.field_id,
          settings: settingsOf(params),
        });
      },
    ),
  );
  router.delete(
    '/realm/profile_fields/:field_id',
    authed<{ field_id: number }>(ctx, fieldId, async ({ user, realm, params }) => {
      await deleteProfileField(ctx, { actor: user, realm, id: params.field_id });
    }),
  );
  router.patch(
    '/users/me/profile_data',
    authed<{ data: ProfileDataUpdate[] }>(
      ctx,
      { data: profileData },
      async ({ user, realm, params }) => {
        await updateOwnProfileData(ctx, { user, realm, data: params.data });
      },
    ),
  );
  router.delete(
    '/users/me/profile_data',
    authed<{ data: number[] }>(
      ctx,
      { data: P.json(Joi.array().items(Joi.number().integer()).required()) },
      async ({ user, realm, params }) => {
        await removeOwnProfileData(ctx, { user, realm, fieldIds: params.data });
      },
    ),
  );
}
