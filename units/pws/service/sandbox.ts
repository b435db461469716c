/**
 * Adapter sandbox writes: every rule of the spec, then one transaction that checks the
 * idempotency store, applies the write and stores its answer together. Same key and body
 * replays (idempotent_replay true); same key, other body: 409. Retries are bounded by the
 * request's retry and timeout_ms; `dry_run` runs the same transaction and rolls it back.
 */
import type { Static } from 'elysia'
import { AppError, conflict, notFound, unavailable, unprocessable } from '../../../common/errors.ts'
import { errorFields } from '../../../common/logger.ts'
import { idempotencyConflict, lookupIn, requestFingerprint, saveAnswerIn } from '../../../db/idempotency.ts'
import type { Sql } from '../../../db/storage.ts'
import type { SandboxReadParams, SandboxWriteRequest, SandboxWriteResponse } from '../model/sandbox.ts'
import { sandboxGate } from '../rules/sandbox.ts'
import { statusForLane, type WorkClass } from '../rules/tasks.ts'
import { nextVersion } from '../rules/versioning.ts'
import {
  findHandoffTx,
  findSandboxWrite,
  findTaskTx,
  insertSandboxWriteTx,
  type TaskRow,
  updateTaskTx,
} from '../store.ts'
import { effectiveState } from './agents.ts'
import { iso, type PwsDeps, write } from './deps.ts'
import { ensureProjectTx } from './projects.ts'
import { insertNewTaskTx, type NewTask } from './tasks.ts'

type Request = Static<typeof SandboxWriteRequest>
type Response = Static<typeof SandboxWriteResponse>
type Echo = NonNullable<Response['handoff_context']>

/**
 * Thrown inside the transaction to roll a dry run back with its answer. An AppError, so the
 * persistence guard passes it through as a refusal rather than a storage failure.
 */
class DryRun extends AppError {
  constructor(readonly answer: Response) {
    super(200, 'dry_run', 'dry run: rolled back')
  }
}

/** What each scenario writes: the task fields it needs from `operation`. */
function scenarioTask(r: Request): NewTask {
  const op = r.operation
  const need = (field: keyof typeof op) => {
    if (op[field] === undefined) {
      throw unprocessable('operation_invalid', `The ${r.scenario} scenario needs operation.${field}.`, {
        field,
      })
    }
    return op[field] as string
  }
  const base = { taskKey: op.task_key, title: op.title, status: op.status }
  switch (r.scenario) {
    case 'project':
      return { ...base, lane: op.lane ?? 'backlog', workClass: 'project_work' }
    case 'support':
      return {
        ...base,
        lane: op.lane ?? 'backlog',
        workClass: 'case_linked_work',
        sourceTruthOwner: 'eis',
        sourceReferenceType: 'support_ticket',
        sourceReference: `sandbox:${need('ticket_id')}`,
        externalTruthState: op.ticket_state ?? 'open',
      }
    case 'qa':
      return {
        ...base,
        lane: need('outcome') === 'passed' ? 'done' : 'in_progress',
        workClass: 'system_runtime_work' as WorkClass,
        sourceReferenceType: 'qa_check',
        sourceReference: need('check_key'),
      }
    case 'release':
      return {
        ...base,
        lane: op.lane ?? 'review',
        workClass: 'project_work',
        sourceReferenceType: 'release',
        sourceReference: need('tag'),
      }
  }
}

/** handoff_context must name a handoff of this project with the same task and agents: else 409. */
async function checkHandoff(tx: Sql, projectId: string, r: Request, now: number): Promise<Echo | null> {
  const ctx = r.handoff_context
  if (!ctx) return null
  if (r.scenario !== 'project' && r.scenario !== 'support') {
    throw unprocessable(
      'handoff_context_not_supported',
      'handoff_context is for the project and support scenarios only.',
    )
  }
  const h = await findHandoffTx(tx, projectId, ctx.handoff_id)
  if (!h) throw conflict('handoff_not_in_project', `Project ${projectId} has no handoff ${ctx.handoff_id}.`)
  const mismatch = (field: string, expected: string, given: string) =>
    conflict('handoff_mismatch', `handoff_context.${field} does not match the handoff.`, {
      field,
      expected,
      given,
    })
  if (h.taskKey !== ctx.task_key) throw mismatch('task_key', h.taskKey, ctx.task_key)
  if (ctx.task_key !== r.operation.task_key) throw mismatch('task_key', ctx.task_key, r.operation.task_key)
  if (h.fromAgent !== ctx.from_agent) throw mismatch('from_agent', h.fromAgent, ctx.from_agent)
  if (h.toAgent !== ctx.to_agent) throw mismatch('to_agent', h.toAgent, ctx.to_agent)
  return { ...ctx, status: effectiveState(h, now), ownership_link_state: 'linked' }
}

async function upsertTask(tx: Sql, projectId: string, t: NewTask, at: string, now: number): Promise<TaskRow> {
  const current = await findTaskTx(tx, projectId, t.taskKey as string)
  if (!current) return insertNewTaskTx(tx, projectId, t, at)
  const lane = t.lane ?? current.lane
  return updateTaskTx(tx, projectId, current.taskKey, {
    title: t.title,
    lane,
    status: t.status ?? statusForLane(lane),
    externalTruthState: t.externalTruthState ?? current.externalTruthState,
    updatedAt: nextVersion(current.updatedAt, now),
  })
}

async function applyOnce(
  deps: PwsDeps,
  projectId: string,
  r: Request,
  attempt: number,
): Promise<{ answer: Response; replayed: boolean }> {
  const req = {
    scope: `pws:adapter-sandbox:${projectId}:${r.scenario}`,
    key: r.idempotency_key,
    fingerprint: requestFingerprint(r),
  }
  const now = deps.now()
  const at = iso(now)
  try {
    return await write(deps, async (tx) => {
      const seen = await lookupIn(tx, req)
      if (seen.state === 'conflict') throw idempotencyConflict(req.scope)
      if (seen.state === 'replay') {
        const answer = JSON.parse(new TextDecoder().decode(seen.response.body)) as Response
        return { answer: { ...answer, idempotent_replay: true }, replayed: true }
      }
      await ensureProjectTx(tx, projectId, projectId, at)
      const echo = await checkHandoff(tx, projectId, r, now)
      const task = await upsertTask(tx, projectId, scenarioTask(r), at, now)
      const answer: Response = {
        project_id: projectId,
        scenario: r.scenario,
        idempotency_key: r.idempotency_key,
        status: r.dry_run ? 'dry_run' : 'applied',
        idempotent_replay: false,
        attempts: attempt,
        timeout_ms: r.timeout_ms,
        owner_attribution: r.owner_attribution,
        handoff_context: echo,
        readback: {
          target_type: 'task',
          target_key: task.taskKey,
          target_summary: {
            task_key: task.taskKey,
            lane: task.lane,
            status: task.status,
            version_token: r.dry_run ? null : task.updatedAt,
            handoff_context: echo,
          },
        },
        evidence: {
          event: 'adapter_sandbox_write_applied',
          project_id: projectId,
          handoff: echo,
          applied_at: at,
        },
      }
      if (r.dry_run) throw new DryRun(answer)
      const body = new TextEncoder().encode(JSON.stringify(answer))
      await saveAnswerIn(
        tx,
        req,
        { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body },
        at,
      )
      await insertSandboxWriteTx(tx, {
        projectId,
        scenario: r.scenario,
        idempotencyKey: r.idempotency_key,
        response: answer,
        createdAt: at,
      })
      return { answer, replayed: false }
    })
  } catch (err) {
    if (err instanceof DryRun) return { answer: err.answer, replayed: false }
    throw err
  }
}

export const PERSISTENCE_UNAVAILABLE = 'persistence_unavailable'

export interface RetryBounds {
  maxAttempts: number
  backoffMs: number
  timeoutMs: number
}

/**
 * Run `fn` until it succeeds, at most `maxAttempts` times, `backoffMs` apart, and never starting
 * an attempt that would end past `timeoutMs`. A refusal (AppError) is final at once; a storage
 * failure after the last attempt is 503 `sandbox_write_failed`.
 */
export async function withBoundedRetry<T>(
  bounds: RetryBounds,
  fn: (attempt: number) => T | Promise<T>,
  onFailure: (attempt: number, err: unknown) => void = () => undefined,
): Promise<T> {
  const deadline = Date.now() + bounds.timeoutMs
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt)
    } catch (err) {
      // The guard turns a storage failure into 503 persistence_unavailable: that one is retried.
      if (err instanceof AppError && err.errorCode !== PERSISTENCE_UNAVAILABLE) throw err
      onFailure(attempt, err)
      if (attempt >= bounds.maxAttempts || Date.now() + bounds.backoffMs >= deadline) {
        throw unavailable(
          'sandbox_write_failed',
          `The sandbox write failed after ${attempt} attempt(s); nothing was applied.`,
          { attempts: attempt },
        )
      }
      await Bun.sleep(bounds.backoffMs)
    }
  }
}

export async function sandboxWrite(deps: PwsDeps, projectId: string, r: Request): Promise<Response> {
  const refusal = sandboxGate(deps.settings.sandbox, projectId, r.owner_attribution.owner_repo)
  const count = (result: string) => deps.counters.sandboxWrites.inc({ scenario: r.scenario, result })
  if (refusal) {
    count('refused')
    throw new AppError(refusal.status, refusal.code, refusal.message)
  }
  try {
    const { answer, replayed } = await withBoundedRetry(
      { maxAttempts: r.retry.max_attempts, backoffMs: r.retry.backoff_ms, timeoutMs: r.timeout_ms },
      (attempt) => applyOnce(deps, projectId, r, attempt),
      (attempt, err) => deps.log.warn({ attempt, err: errorFields(err) }, 'sandbox write attempt failed'),
    )
    count(replayed ? 'replayed' : answer.status)
    return answer
  } catch (err) {
    count(err instanceof AppError && err.status === 503 ? 'failed' : 'refused')
    throw err
  }
}

export async function readSandboxWrite(
  deps: PwsDeps,
  p: Static<typeof SandboxReadParams>,
): Promise<Response> {
  const row = await findSandboxWrite(deps.storage, p.project_id, p.scenario, p.idempotency_key)
  if (!row)
    throw notFound('sandbox_write_not_found', 'No sandbox write with this scenario and idempotency_key.')
  return row.response as unknown as Response
}
