import { Elysia } from 'elysia'
import { jsonView, timedView } from '../../../common/json-view.ts'
import { nowIso } from '../../../common/time.ts'
import { buildCommit } from '../../../common/version.ts'
import { boundedSnapshot } from '../../../db/snapshot.ts'
import type { Storage } from '../../../db/storage.ts'
import {
  CHALLENGE_FIELD,
  ContactContract,
  ContactIntakeRequest,
  ContactIntakeResponse,
  HealthResponse,
  HONEYPOT_FIELD,
  ReadyResponse,
  StatusDocument,
  VersionDocument,
} from '../model.ts'
import type { SiteIdentity } from '../rules/delivery.ts'
import { outboxSummary } from '../store.ts'
import { CONTACT_CONTENT_TYPES } from './contact.ts'
import type { Site } from './site.ts'

/** The request's path as sent, without the query (what `/health` reports as `request_path`). */
function pathOf(request: Request): string {
  const url = request.url
  const start = url.indexOf('/', url.indexOf('//') + 2)
  const query = url.indexOf('?', start)
  return query === -1 ? url.slice(start) : url.slice(start, query)
}

export interface StatusDeps {
  storage: Storage
  site: Site
  identity: SiteIdentity & { legacy_slugs: string[] }
  version: string
  startedAt: string
  turnstileConfigured: boolean
  /** Said in /ready notes when the Turnstile check is a stand-in (development without a secret). */
  turnstileNote?: string
  webhookConfigured: boolean
  mailto: string | undefined
  production: boolean
}

export const CONTRACT_VERSION = '1'

/** The contract file is generated from the schemas the route enforces, so the two cannot drift. */
export function contactContract() {
  return {
    contract: 'contact-intake' as const,
    version: CONTRACT_VERSION,
    route: { method: 'POST' as const, path: '/api/contact' as const },
    content_types: CONTACT_CONTENT_TYPES,
    required_fields: [...(ContactIntakeRequest.required ?? [])],
    challenge: { provider: 'cloudflare-turnstile', field: CHALLENGE_FIELD, verify: 'server-side siteverify' },
    honeypot: { field: HONEYPOT_FIELD, rule: 'any non-empty value is refused' },
    request_schema: ContactIntakeRequest,
    response_schema: ContactIntakeResponse,
    deliveries: ['webhook' as const, 'mailto_fallback' as const, 'mailto' as const],
    errors: [
      {
        status: 400,
        code: 'validation_failed',
        when: 'a required field is missing, blank, too long or malformed',
      },
      { status: 400, code: 'malformed_body', when: 'the body cannot be parsed' },
      { status: 401, code: 'turnstile_token_missing', when: `${CHALLENGE_FIELD} is absent or empty` },
      { status: 401, code: 'turnstile_verification_failed', when: 'siteverify rejected the token' },
      { status: 413, code: 'payload_too_large', when: 'the body exceeds the size limit' },
      { status: 415, code: 'unsupported_media_type', when: 'the content type is not one of content_types' },
      { status: 422, code: 'honeypot_triggered', when: `${HONEYPOT_FIELD} is not empty` },
      { status: 503, code: 'turnstile_not_configured', when: 'no Turnstile secret is configured' },
      { status: 503, code: 'turnstile_unavailable', when: 'siteverify did not answer in time' },
      { status: 503, code: 'storage_unavailable', when: 'the intake could not be stored' },
    ],
  }
}

export const statusRoutes = (deps: StatusDeps) => {
  const { identity } = deps
  const contract = contactContract()
  const baseIdentity = {
    tool_key: identity.tool_key,
    legacy_slugs: identity.legacy_slugs,
    runtime_kind: identity.runtime_kind,
  }
  const readiness = async () => {
    const checks = {
      public_routes_expected: deps.site.hasPublicRoutes(),
      contact_intake_surface_present: await deps.storage.ready(),
      turnstile_secret_configured: deps.turnstileConfigured,
      contact_webhook_configured: deps.webhookConfigured,
    }
    const notes: string[] = []
    if (!checks.public_routes_expected)
      notes.push('index.html or contact.html is missing from the public directory')
    if (!checks.contact_intake_surface_present) notes.push('the intake database is not answering')
    if (!checks.turnstile_secret_configured)
      notes.push('TURNSTILE_SECRET_KEY is not set: contact submissions are refused')
    if (deps.turnstileNote) notes.push(deps.turnstileNote)
    if (!checks.contact_webhook_configured) {
      notes.push(
        deps.mailto
          ? `CONTACT_WEBHOOK_URL is not set: intakes are stored and answered with mailto_fallback (${deps.mailto})`
          : 'CONTACT_WEBHOOK_URL is not set: intakes are stored and answered with mailto',
      )
    }
    const ready =
      checks.public_routes_expected &&
      checks.contact_intake_surface_present &&
      checks.turnstile_secret_configured
    return { ok: true, ready, ...baseIdentity, notes, checks, checked_at: nowIso() }
  }
  // Probed often: the database is asked at most once per STATUS_MAX_AGE_MS, so a failing one
  // turns /ready to 503 within that bound. Nothing this process writes changes the answer.
  const readyNow = boundedSnapshot(readiness)
  const imageTag = `sha-${buildCommit().slice(0, 12)}`
  // The same for the life of the process: one cached view.
  const versionDocument = {
    ...baseIdentity,
    version: deps.version,
    commit: buildCommit(),
    started_at: deps.startedAt,
    update: { channel: 'main', mechanism: 'redeploy of an immutable image tag', image_tag: imageTag },
  }

  return new Elysia({ name: 'web:status' })
    .get(
      '/health',
      timedView(
        HealthResponse,
        (now, { request }) => ({
          ok: true,
          status: 'ok' as const,
          ...baseIdentity,
          public_base_url: identity.public_base_url,
          request_path: pathOf(request),
          checks: {
            pages_function_runtime: true,
            turnstile_secret_configured: deps.turnstileConfigured,
            contact_webhook_configured: deps.webhookConfigured,
          },
          checked_at: now,
        }),
        { variant: ({ request }) => pathOf(request) },
      ),
      { response: { 200: HealthResponse }, detail: { summary: 'Liveness' } },
    )
    .get(
      '/ready',
      async ({ set }) => {
        const body = readyNow.current() ?? (await readyNow.get())
        if (!body.ready) set.status = 503
        return body
      },
      {
        response: { 200: ReadyResponse, 503: ReadyResponse },
        detail: { summary: 'Readiness (503 when not ready)' },
      },
    )
    .get(
      '/version.json',
      jsonView(VersionDocument, () => versionDocument),
      {
        response: { 200: VersionDocument },
        detail: { summary: 'Version and update visibility' },
      },
    )
    .get(
      '/status.json',
      async () => {
        const ready = await readiness()
        let summary: Awaited<ReturnType<typeof outboxSummary>> | undefined
        try {
          summary = await outboxSummary(deps.storage)
        } catch {
          summary = undefined
        }
        const delivery = deps.webhookConfigured ? 'webhook' : deps.mailto ? 'mailto_fallback' : 'mailto'
        return {
          ok: true,
          status: ready.ready && summary !== undefined ? ('operational' as const) : ('degraded' as const),
          ...baseIdentity,
          version: deps.version,
          checked_at: nowIso(),
          contact_intake: {
            database: summary !== undefined,
            turnstile_secret_configured: deps.turnstileConfigured,
            delivery_mode: delivery as 'webhook' | 'mailto_fallback' | 'mailto',
            intakes_stored: summary?.intakes ?? 0,
            deliveries_pending: summary?.pending ?? 0,
            deliveries_delivered: summary?.delivered ?? 0,
            oldest_pending_at: summary?.oldestPendingAt ?? null,
            last_delivery_error: summary?.lastError ?? null,
          },
        }
      },
      { response: { 200: StatusDocument }, detail: { summary: 'Status document' } },
    )
    .get('/contracts/contact-intake.contract.json', () => contract, {
      response: { 200: ContactContract },
      detail: { summary: 'The contact-intake contract this runtime enforces' },
    })
}
