import { Elysia } from 'elysia'
import { notFound } from '../../../common/errors.ts'
import { rejectUnknownFields } from '../../../common/schema.ts'
import type { Storage } from '../../../db/storage.ts'
import { type AuthorityPlugin, mark } from '../authority.ts'
import { type ControlAgent, leaseHeldError, RECONCILE_LEASE } from '../control.ts'
import {
  ControlStatus,
  DispatchPreview,
  DispatchPreviewRequest,
  Leases,
  ReconcileResult,
  Schedule,
  Watchdog,
} from '../model.ts'
import { classifyText } from '../rules/classify.ts'
import type { RuntimeService } from '../service/runtime.ts'
import * as store from '../store.ts'
import { READ_ERRORS, WRITE_ERRORS } from './runtime.ts'

export interface ControlDeps {
  storage: Storage
  auth: AuthorityPlugin
  control: ControlAgent
  runtime: RuntimeService
  intervalS: number
  minimumIntervalS: number
  leaseDurationS: number
  stallAfterS: number
  watchdogIntervalS: number
}

export const leaseView = (l: store.LeaseRow, me: string) => {
  const live = l.holder !== null && l.expiresAt !== null && Date.parse(l.expiresAt) > Date.now()
  return {
    name: l.name,
    holder: l.holder,
    held: live,
    held_by_this_instance: live && l.holder === me,
    acquired_at: l.acquiredAt,
    renewed_at: l.renewedAt,
    expires_at: l.expiresAt,
    duration_s: l.durationS,
    renew_count: l.renewCount,
    generation: l.generation,
  }
}

const runView = (r: store.ReconcileRow) => ({
  run_id: r.runId,
  holder: r.holder,
  trigger: r.trigger,
  started_at: r.startedAt,
  finished_at: r.finishedAt,
  outcome: r.outcome,
  drift_items: r.driftItems,
  max_severity: r.maxSeverity,
  host_hash: r.hostHash,
  error: r.error,
})

/** Control-agent status, leases, watchdog, schedule, reconcile and dispatch preview. */
export const controlRoutes = (deps: ControlDeps) => {
  const { control } = deps
  const watchdog = async () => ({
    ...(await control.watchdog()),
    stall_after_s: deps.stallAfterS,
    check_interval_s: deps.watchdogIntervalS,
    last_check_at: control.lastWatchdogCheck() ? control.lastWatchdogCheck()!.checked_at : null,
  })
  const schedule = async () => {
    const last = (await store.lastRuns(deps.storage.db, 1))[0]
    return {
      reconcile_interval_s: deps.intervalS,
      minimum_interval_s: deps.minimumIntervalS,
      lease_duration_s: deps.leaseDurationS,
      watchdog_interval_s: deps.watchdogIntervalS,
      loop_running: control.loopRunning(),
      next_run_at: control.nextRunAt(),
      last_run: last ? runView(last) : null,
    }
  }

  return new Elysia({ name: 'rms:control' })
    .use(deps.auth)
    .guard({ access: 'read' }, (app) =>
      app
        .get(
          '/api/v1/control-agent/status',
          async ({ authority }) => {
            const lease = await control.currentLease()
            return {
              instance: control.holder,
              started_at: control.startedAt,
              holds_lease: await control.holdsLease(),
              lease: lease ? leaseView(lease, control.holder) : null,
              running: control.runningNow(),
              recent_runs: (await store.lastRuns(deps.storage.db, 10)).map(runView),
              watchdog: await watchdog(),
              schedule: await schedule(),
              ...mark(authority),
            }
          },
          { response: { 200: ControlStatus, ...READ_ERRORS }, detail: { summary: 'Control-agent status' } },
        )
        .get(
          '/api/v1/control-agent/leases',
          async ({ authority }) => ({
            instance: control.holder,
            items: (await store.listLeases(deps.storage.db)).map((l) => leaseView(l, control.holder)),
            transitions: (await store.listTransitions(deps.storage.db, 50)).map((x) => ({
              lease: x.leaseName,
              at: x.at,
              transition: x.transition,
              from_holder: x.fromHolder,
              to_holder: x.toHolder,
              generation: x.generation,
            })),
            ...mark(authority),
          }),
          {
            response: { 200: Leases, ...READ_ERRORS },
            detail: { summary: 'Leases with holder, renewals and transitions' },
          },
        )
        .get(
          '/api/v1/control-agent/watchdog',
          async ({ authority }) => ({ ...(await watchdog()), ...mark(authority) }),
          {
            response: { 200: Watchdog, ...READ_ERRORS },
            detail: { summary: 'Watchdog verdict on the reconcile loop' },
          },
        )
        .get(
          '/api/v1/control-agent/schedule',
          async ({ authority }) => ({ ...(await schedule()), ...mark(authority) }),
          {
            response: { 200: Schedule, ...READ_ERRORS },
            detail: { summary: 'Reconcile schedule' },
          },
        ),
    )
    .guard({ access: 'write' }, (app) =>
      app
        .post(
          '/api/v1/control-agent/reconcile',
          async ({ authority }) => {
            const r = await control.reconcile('manual')
            if (r.outcome === 'skipped') throw leaseHeldError(r.lease)
            return {
              outcome: r.outcome,
              run: r.run ? runView(r.run) : null,
              lease: leaseView(r.lease, control.holder),
              ...mark(authority),
            }
          },
          {
            response: { 200: ReconcileResult, ...WRITE_ERRORS },
            detail: {
              summary: `Reconcile now (needs the ${RECONCILE_LEASE} lease; 409 when another instance holds it)`,
            },
          },
        )
        .post(
          '/api/v1/control-agent/dispatch-preview',
          async ({ authority, body }) => {
            const c = await deps.runtime.catalog()
            const fed = deps.runtime.federation(c)
            let domainId: string | null = null
            let classification: 'classified' | 'ambiguous' | 'unclassified' | 'explicit' | null = null
            if (body.domain_id) {
              if (!c.domains.some((d) => d.domain_id === body.domain_id))
                throw notFound('domain_not_found', 'No domain has this id.')
              domainId = body.domain_id
              classification = 'explicit'
            } else if (body.text) {
              const r = classifyText(body.text, c.domains)
              classification = r.status
              domainId = r.domain_id
            }
            const inDomain = fed.agents.filter((a) => domainId !== null && a.domain_id === domainId)
            const candidates = inDomain.map((a) => {
              const reasons: string[] = [...a.lockout_reasons]
              if (a.lifecycle_state !== 'active') reasons.push(`lifecycle_${a.lifecycle_state}`)
              return {
                agent_id: a.agent_id,
                agent_slug: a.agent_slug,
                eligible: reasons.length === 0,
                reasons,
              }
            })
            const eligible = candidates
              .filter((x) => x.eligible)
              .sort((x, y) => {
                const ax = fed.agents.find((a) => a.agent_id === x.agent_id)!
                const ay = fed.agents.find((a) => a.agent_id === y.agent_id)!
                // Workers before coordinators, shallower before deeper, then by id: one answer, always.
                const rank = (k: string) => (k === 'worker' ? 0 : k === 'coordinator' ? 1 : 2)
                return (
                  rank(ax.agent_class) - rank(ay.agent_class) ||
                  (ax.depth ?? 99) - (ay.depth ?? 99) ||
                  x.agent_id.localeCompare(y.agent_id)
                )
              })
            const refused_reason = fed.fail_closed
              ? 'federation_fail_closed'
              : fed.source === 'desired_state_fallback'
                ? 'degraded_fallback'
                : classification === null
                  ? 'no_text_or_domain'
                  : classification === 'unclassified'
                    ? 'unclassified'
                    : classification === 'ambiguous'
                      ? 'ambiguous_classification'
                      : eligible.length === 0
                        ? 'no_eligible_agent'
                        : null
            return {
              dispatched: false as const,
              domain_id: domainId,
              classification,
              federation_state: fed.federation_state,
              selected_agent_id: refused_reason === null ? eligible[0]!.agent_id : null,
              refused_reason,
              candidates,
              ...mark(authority),
            }
          },
          {
            body: DispatchPreviewRequest,
            ...rejectUnknownFields(DispatchPreviewRequest),
            response: { 200: DispatchPreview, ...WRITE_ERRORS },
            detail: { summary: 'Which agent would get this work (nothing is dispatched)' },
          },
        ),
    )
}
