import { t } from 'elysia'
import { LIFECYCLE_STATES, PROJECT_MANAGER_ROLES, SPECIAL_POSTURES } from '../rules/access.ts'
import { Limit, lit, Message, Nullable, Ts } from './common.ts'

const Subject = t.String({ minLength: 1, maxLength: 256 })

/** One line of the facts file an operator loads (`svc eis facts import`). */
export const IdentityFactInput = t.Object(
  {
    technical_subject: Subject,
    business_identity_id: t.Optional(Subject),
    lifecycle_state: lit(...LIFECYCLE_STATES),
    lifecycle_changed_at: t.String({ format: 'date-time' }),
    project_tool_eligibility: lit('eligible', 'ineligible'),
    project_manager_role: t.Optional(lit(...PROJECT_MANAGER_ROLES)),
    project_manager_projects: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 256 }), { maxItems: 1000 }),
    ),
    special_posture: t.Optional(
      t.Object(
        {
          kind: lit(...SPECIAL_POSTURES),
          reason: t.Optional(t.String({ maxLength: 1000 })),
          expires_at: t.Optional(t.String({ format: 'date-time' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)

export const AccessFactRequest = t.Object({
  technical_subject: t.Optional(Subject),
  business_identity_id: t.Optional(Subject),
})

export const AccessFact = t.Object(
  {
    contract_version: t.Literal(2),
    technical_subject: Nullable(t.String()),
    business_identity_id: Nullable(t.String()),
    subject_known: t.Boolean(),
    lifecycle_state: t.String(),
    project_tool_login_allowed: t.Boolean(),
    project_tool_eligibility: t.String(),
    project_manager_role: t.String(),
    project_manager_projects: t.Array(t.String()),
    project_manager_allowed: t.Boolean(),
    special_posture_kind: t.String(),
    special_posture_reason: Nullable(t.String()),
    special_posture_expires_at: Nullable(t.String()),
    special_posture_active: t.Boolean(),
    dominance: Nullable(t.String()),
    dominated_by: Nullable(t.String()),
    fail_closed_reason: Nullable(t.String()),
    projection_version: t.String(),
    evaluated_at: Ts,
  },
  { description: 'Normalized fail-closed access fact, contract version 2' },
)

export const BatchRequest = t.Object({
  limit: t.Optional(Limit),
  after: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 256,
      description: 'the last technical_subject of the previous page',
    }),
  ),
})

const Page = {
  count: t.Integer(),
  next_after: Nullable(t.String({ description: 'pass as `after` for the next page; null on the last' })),
  projection_version: t.String(),
}

export const AccessFactBatch = Message(t.Object({ facts: t.Array(AccessFact), ...Page }))

export const LifecycleFact = t.Object({
  technical_subject: t.String(),
  business_identity_id: Nullable(t.String()),
  lifecycle_state: t.String(),
  lifecycle_changed_at: Ts,
  dominance: lit('dominant', 'shadowed'),
  dominated_by: Nullable(t.String()),
})
export const LifecycleFactBatch = Message(t.Object({ facts: t.Array(LifecycleFact), ...Page }))

export const BootstrapRequest = t.Object({ technical_subject: t.Optional(Subject) })
export const BootstrapTruth = Message(
  t.Object({
    technical_subject: t.String(),
    is_configured_default: t.Boolean(),
    default_source: lit('EIS_BOOTSTRAP_SUBJECT', 'built_in_default'),
    principal_present: t.Boolean(),
    bootstrap_allowed: t.Boolean(),
    access_fact: AccessFact,
    contract_ref: t.Object({
      family: t.String(),
      version: t.String(),
      access_fact_contract_version: t.Literal(2),
    }),
    projection_ref: t.Object({
      projection_version: t.String(),
      imported_at: Nullable(Ts),
      source: Nullable(t.String()),
    }),
  }),
)
