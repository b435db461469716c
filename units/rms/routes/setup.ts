import { Elysia, t } from 'elysia'
import { notFound } from '../../../common/errors.ts'
import { rejectUnknownFields } from '../../../common/schema.ts'
import type { Storage } from '../../../db/storage.ts'
import { type AuthorityPlugin, mark } from '../authority.ts'
import {
  ClassificationResult,
  ClassifyRequest,
  DomainList,
  DomainProfiles,
  SetupPreview,
  SetupPreviewRequest,
  SetupRequest,
  SetupResult,
} from '../model.ts'
import { classifyText } from '../rules/classify.ts'
import { diffState, planOperations } from '../rules/drift.ts'
import { docHash, resourceFile } from '../rules/resources.ts'
import { applyChanges, type RuntimeService, referenceProblems } from '../service/runtime.ts'
import * as store from '../store.ts'
import { READ_ERRORS, WRITE_ERRORS } from './runtime.ts'

export interface SetupDeps {
  storage: Storage
  auth: AuthorityPlugin
  runtime: RuntimeService
}

const DomainParams = t.Object({ domain_id: t.String({ minLength: 1, maxLength: 63 }) })

/** Classification, domains and their profiles, setup preview and setup. */
export const setupRoutes = (deps: SetupDeps) => {
  const preview = async (domainId: string, profileId: string) => {
    const { agents, changes } = await deps.runtime.setupChanges(domainId, profileId)
    const desired = await store.loadDesired(deps.storage.db)
    const effective = applyChanges(desired, changes)
    const before = new Set(referenceProblems(desired))
    const s = deps.runtime.snapshot()
    const { operations } = planOperations(
      s.readable ? diffState(effective, s) : [],
      effective,
      resourceFile,
      false,
    )
    return {
      domain_id: domainId,
      profile_id: profileId,
      agents,
      changes: changes.length,
      reference_problems: referenceProblems(effective).filter((p) => !before.has(p)),
      operations: operations.map((o) => ({
        op: o.op,
        kind: o.kind,
        resource_id: o.resource_id,
        file: o.file,
        reason: o.reason,
        severity: o.severity,
        document_hash: o.document ? docHash(o.document) : null,
      })),
    }
  }

  return new Elysia({ name: 'rms:setup' })
    .use(deps.auth)
    .guard({ access: 'read' }, (app) =>
      app
        .post(
          '/api/v1/classify',
          async ({ authority, body }) => {
            const c = await deps.runtime.catalog()
            const result = classifyText(body.text, c.domains)
            const fed = deps.runtime.federation(c)
            const eligible = fed.agents
              .filter((a) => a.admitted && result.domain_id !== null && a.domain_id === result.domain_id)
              .map((a) => a.agent_id)
            return { ...result, eligible_agent_ids: eligible, ...mark(authority) }
          },
          {
            body: ClassifyRequest,
            response: { 200: ClassificationResult, ...READ_ERRORS },
            detail: { summary: 'Classify work into a domain (changes nothing)' },
          },
        )
        .post(
          '/api/v1/setup/preview',
          async ({ authority, body }) => ({
            ...(await preview(body.domain_id, body.profile_id)),
            ...mark(authority),
          }),
          {
            body: SetupPreviewRequest,
            response: { 200: SetupPreview, ...READ_ERRORS },
            detail: { summary: 'Preview a domain setup (changes nothing)' },
          },
        )
        .get(
          '/api/v1/domains',
          async ({ authority }) => {
            const c = await deps.runtime.catalog()
            const items = c.domains.map((d) => ({
              domain_id: d.domain_id,
              title: d.title,
              keywords: d.keywords,
              team_id: d.team_id,
              profile_ids: d.profiles.map((p) => p.profile_id),
              agent_ids: c.agents.filter((a) => a.domain_id === d.domain_id).map((a) => a.agent_id),
            }))
            return { items, count: items.length, ...mark(authority) }
          },
          { response: { 200: DomainList, ...READ_ERRORS }, detail: { summary: 'Domain list' } },
        )
        .get(
          '/api/v1/domains/:domain_id/profiles',
          async ({ authority, params }) => {
            const d = (await deps.runtime.catalog()).domains.find((x) => x.domain_id === params.domain_id)
            if (!d) throw notFound('domain_not_found', 'No domain has this id.')
            return { domain_id: d.domain_id, items: d.profiles, count: d.profiles.length, ...mark(authority) }
          },
          {
            params: DomainParams,
            response: { 200: DomainProfiles, ...READ_ERRORS },
            detail: { summary: 'Profiles of a domain' },
          },
        ),
    )
    .guard({ access: 'write' }, (app) =>
      app.post(
        '/api/v1/domains/:domain_id/setup',
        async ({ authority, params, body }) => {
          const actor = { subject: authority.subject, authority_source: authority.authority_source }
          const { agents, changes } = await deps.runtime.setupChanges(params.domain_id, body.profile_id)
          const plan = await deps.runtime.plan(changes, false, actor)
          const applied =
            plan.operations.length > 0 || changes.length > 0
              ? await deps.runtime.apply(plan.plan_id, plan.plan_hash, actor)
              : null
          return {
            domain_id: params.domain_id,
            profile_id: body.profile_id,
            agents,
            plan,
            rollout: applied?.rollout ?? null,
            drift: applied?.drift ?? (await deps.runtime.drift()).summary,
            ...mark(authority),
          }
        },
        {
          params: DomainParams,
          body: SetupRequest,
          ...rejectUnknownFields(SetupRequest),
          response: { 200: SetupResult, ...WRITE_ERRORS },
          detail: { summary: 'Set up a domain profile: plan and apply its agents on the runtime host' },
        },
      ),
    )
}
