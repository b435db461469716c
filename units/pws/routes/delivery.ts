import { Elysia, t } from 'elysia'
import type { credentials } from '../../../common/credentials.ts'
import { errorResponses } from '../../../common/errors.ts'
import type { sessionPlugin } from '../../../common/session.ts'
import type { signaturePlugin } from '../../../common/signature.ts'
import { ProjectParams } from '../model/common.ts'
import {
  BranchParams,
  BranchQueue,
  DeliveryList,
  HealthSummary,
  ItemParams,
  LinkedTaskResponse,
  ProviderParams,
  ReleaseReadiness,
  ReviewActionRequest,
  ReviewActionResponse,
  ReviewQueue,
  SyncResult,
  WebhookResult,
} from '../model/delivery.ts'
import type { Provider } from '../rules/delivery.ts'
import {
  branchQueue,
  createLinkedTask,
  deliveryList,
  healthSummary,
  integrationSync,
  releaseReadiness,
  reviewAction,
  reviewQueue,
  webhookSync,
} from '../service/delivery.ts'
import type { PwsDeps } from '../service/deps.ts'
import { integrationsOverview } from '../service/overview.ts'
import { requireProject } from '../service/projects.ts'

const P = '/api/v1/projects/:project_id'
const read = errorResponses(400, 401, 403, 404)
const write = errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 503)

const list = (path: string) => ({
  session: 'viewer' as const,
  params: ProjectParams,
  response: { 200: DeliveryList, ...read },
  detail: { summary: `Stored ${path} of the project's primary repository` },
})

export const deliveryRoutes = (deps: PwsDeps, sessions: ReturnType<typeof sessionPlugin>) =>
  new Elysia({ name: 'pws:delivery' })
    .use(sessions)
    .get(
      `${P}/delivery/pipelines`,
      ({ params }) => deliveryList(deps, params.project_id, 'pipeline'),
      list('pipelines'),
    )
    .get(
      `${P}/delivery/deployments`,
      ({ params }) => deliveryList(deps, params.project_id, 'deployment'),
      list('deployments'),
    )
    .get(
      `${P}/delivery/releases`,
      ({ params }) => deliveryList(deps, params.project_id, 'release'),
      list('releases'),
    )
    .get(
      `${P}/delivery/environments`,
      ({ params }) => deliveryList(deps, params.project_id, 'environment'),
      list('environments'),
    )
    .get(`${P}/delivery/review-queue`, ({ params }) => reviewQueue(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: ReviewQueue, ...read },
      detail: { summary: 'Open pull requests with review state, linked tasks and groups' },
    })
    .post(
      `${P}/delivery/review-queue/:provider/:external_id/create-task`,
      async ({ params, set }) => {
        const out = await createLinkedTask(
          deps,
          params.project_id,
          'pull_request',
          params.provider,
          params.external_id,
        )
        set.status = out.created ? 201 : 200
        return out
      },
      {
        session: 'operator',
        params: ItemParams,
        response: { 200: LinkedTaskResponse, 201: LinkedTaskResponse, ...write },
        detail: { summary: 'A task linked to the review item (201; 200 with the task already linked)' },
      },
    )
    .post(
      `${P}/delivery/review-queue/:provider/:external_id/actions`,
      ({ params, body }) => reviewAction(deps, params.project_id, params.provider, params.external_id, body),
      {
        session: 'operator',
        params: ItemParams,
        body: ReviewActionRequest,
        response: { 200: ReviewActionResponse, ...write },
        detail: {
          summary: "Close or reopen the pull request at the provider, with the item's expected_version",
          description:
            '409 expected_version_required or version_conflict with remediation metadata (nothing changes). 422 unsupported_state_action. 503 provider_not_configured or provider_unavailable.',
        },
      },
    )
    .get(`${P}/delivery/branch-queue`, ({ params }) => branchQueue(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: BranchQueue, ...read },
      detail: { summary: 'Branches with freshness (stale, aging, fresh, default), age and risks' },
    })
    .post(
      `${P}/delivery/branch-queue/:provider/:branch_name/create-task`,
      async ({ params, set }) => {
        // The router has already decoded the name (`feature%2Fx` arrives as `feature/x`).
        const out = await createLinkedTask(
          deps,
          params.project_id,
          'branch',
          params.provider,
          params.branch_name,
        )
        set.status = out.created ? 201 : 200
        return out
      },
      {
        session: 'operator',
        params: BranchParams,
        response: { 200: LinkedTaskResponse, 201: LinkedTaskResponse, ...write },
        detail: { summary: 'A task linked to the branch (URL-encode names with slashes)' },
      },
    )
    .get(`${P}/delivery/release-readiness`, ({ params }) => releaseReadiness(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: ReleaseReadiness, ...read },
      detail: { summary: 'Release gates computed from pipelines, deployments and open reviews' },
    })
    .get(`${P}/delivery/health-summary`, ({ params }) => healthSummary(deps, params.project_id), {
      session: 'viewer',
      params: ProjectParams,
      response: { 200: HealthSummary, ...read },
      detail: { summary: 'Delivery health computed from stored provider data' },
    })
    .get(
      `${P}/integrations/:provider`,
      async ({ params }) => {
        await requireProject(deps, params.project_id)
        return {
          project_id: params.project_id,
          provider: params.provider,
          ...(await integrationsOverview(deps, params.project_id))[params.provider],
        }
      },
      {
        session: 'viewer',
        params: ProviderParams,
        response: {
          200: t.Object({ project_id: t.String(), provider: t.String() }, { additionalProperties: true }),
          ...read,
        },
        detail: {
          summary: 'Integration state: configured, webhook verification, last webhook, poll and result',
        },
      },
    )
    .post(
      `${P}/integrations/:provider/sync`,
      ({ params }) => integrationSync(deps, params.project_id, params.provider),
      {
        session: 'operator',
        params: ProviderParams,
        response: { 200: SyncResult, ...write },
        detail: {
          summary:
            'Sync the primary repository from the provider now (503 when not configured or unreachable)',
        },
      },
    )

const WebhookBody = t.Object(
  {},
  { additionalProperties: true, description: "the provider's webhook payload" },
)

const repositoryOf = (provider: Provider, body: Record<string, unknown>): string => {
  const o = (v: unknown) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {})
  const name = provider === 'gitlab' ? o(body.project).path_with_namespace : o(body.repository).full_name
  return typeof name === 'string' ? name : ''
}

/** Signed inbound webhooks: a verified delivery triggers a sync of every project bound to the repository. */
export const webhookRoutes = (
  deps: PwsDeps,
  signatures: ReturnType<typeof signaturePlugin<Record<'githubWebhook' | 'giteaWebhook', never>>>,
  gitlabCreds: ReturnType<typeof credentials<{ gitlabWebhook: never }>>,
) => {
  const handle = async (
    provider: Provider,
    body: Record<string, unknown>,
    set: { status?: number | string },
  ) => {
    set.status = 202
    return webhookSync(deps, provider, repositoryOf(provider, body))
  }
  const opts = {
    body: WebhookBody,
    response: { 202: WebhookResult, ...errorResponses(400, 401, 413, 415, 503) },
  }
  return new Elysia({ name: 'pws:webhooks' })
    .use(signatures)
    .use(gitlabCreds)
    .post('/api/v1/integrations/github/webhook', ({ body, set }) => handle('github', body, set), {
      ...opts,
      signed: 'githubWebhook',
      detail: { summary: "GitHub webhook (X-Hub-Signature-256); syncs the repository's projects" },
    })
    .post('/api/v1/integrations/gitea/webhook', ({ body, set }) => handle('gitea', body, set), {
      ...opts,
      signed: 'giteaWebhook',
      detail: { summary: "Gitea webhook (X-Gitea-Signature); syncs the repository's projects" },
    })
    .post('/api/v1/integrations/gitlab/webhook', ({ body, set }) => handle('gitlab', body, set), {
      ...opts,
      auth: 'gitlabWebhook',
      detail: { summary: "GitLab webhook (X-Gitlab-Token); syncs the repository's projects" },
    })
}
