/** Approval workflows: packets, their dispatch to the runtime host (RMS), and the decisions that come back. */
import { AppError, conflict, notFound, unavailable, unprocessable } from '../../../common/errors.ts'
import { safeEqual, sha256Hex } from '../../../common/hash.ts'
import { newId } from '../../../common/time.ts'
import { enqueueIn } from '../../../db/outbox.ts'
import type { Sql } from '../../../db/storage.ts'
import { P } from '../paths.ts'
import { checkDecision, type Decision, effectiveState, isOpen, STAGED_DOCTYPES } from '../rules/approval.ts'
import { docName, SERIES } from '../rules/naming.ts'
import * as store from '../store.ts'
import type { EisDeps } from './deps.ts'
import { dispatchMessageId, RUNTIME_HOST_TARGET } from './dispatch.ts'

/** RMS's execution approvals (CONTRACTS.md §4): EIS records each dispatched packet there, pending. */
export const RMS_APPROVALS_PATH = '/api/v1/execution/approvals'

export function packetView(p: store.ApprovalPacketRow, now: number) {
  return {
    name: p.name,
    state: effectiveState(p.state, p.expiresAt, now),
    target_doctype: p.targetDoctype,
    target_name: p.targetName,
    approval_context: p.context,
    correlation_id: p.correlationId,
    expires_at: p.expiresAt,
    dispatch: p.dispatch,
    decision: p.decision,
    creation: p.creation,
    modified: p.modified,
  }
}
export type PacketView = ReturnType<typeof packetView>

/** What the runtime host needs: the RMS record, and how to call back (token shown only here). */
function dispatchBundle(p: store.ApprovalPacketRow, callbackToken: string) {
  return {
    target: 'runtime_host' as const,
    request: {
      method: 'POST' as const,
      path: RMS_APPROVALS_PATH,
      body: rmsApprovalBody(p),
    },
    callback: {
      path: P('callbacks.runtime_host_approval'),
      packet: p.name,
      callback_token: callbackToken,
      signature: 'X-Signature: hex HMAC-SHA256 of the raw body with AUTOMATION_SHARED_SECRET',
    },
    correlation_id: p.correlationId,
  }
}

const rmsApprovalBody = (p: store.ApprovalPacketRow) => ({
  approval_id: p.name,
  proposal_ref: `${p.targetDoctype}:${p.targetName}`,
  decision: 'pending' as const,
  policy_approved: false,
  human_approved: false,
})

async function targetExists(deps: EisDeps, doctype: string, name: string): Promise<boolean> {
  return (await deps.erp.getDoc(doctype, name)) !== undefined
}

export interface ApprovalRequest {
  target_doctype: string
  target_name: string
  approval_context?: Record<string, unknown>
  expires_in_s?: number
}

/** Open a packet for a document; one open packet per document at a time (else 409). */
export async function requestApproval(deps: EisDeps, req: ApprovalRequest) {
  if (!(await targetExists(deps, req.target_doctype, req.target_name))) {
    throw notFound('target_not_found', `No ${req.target_doctype} is named ${req.target_name}.`)
  }
  const callbackToken = newId() + newId()
  const at = new Date(deps.now())
  const row: store.ApprovalPacketRow = {
    name: docName(SERIES.packet),
    state: 'requested',
    targetDoctype: req.target_doctype,
    targetName: req.target_name,
    context: req.approval_context ?? {},
    callbackTokenHash: sha256Hex(callbackToken),
    correlationId: newId(),
    dispatch: null,
    decision: null,
    expiresAt: new Date(at.getTime() + (req.expires_in_s ?? deps.approvalTtlS) * 1000).toISOString(),
    creation: at.toISOString(),
    modified: at.toISOString(),
  }
  await deps.storage.transaction(async (tx) => {
    const open = await store.openPacketFor(tx, req.target_doctype, req.target_name)
    if (open && effectiveState(open.state, open.expiresAt, deps.now()) !== 'expired') {
      throw conflict('approval_already_open', 'This document already has an open approval packet.', {
        packet: open.name,
      })
    }
    if (STAGED_DOCTYPES.has(req.target_doctype))
      await moveStaged(
        tx,
        req.target_doctype,
        req.target_name,
        ['staged', 'posting_error', 'rejected'],
        'pending_approval',
        row.modified,
      )
    await store.insertPacket(tx, row)
  })
  return {
    packet: packetView(row, deps.now()),
    callback_token: callbackToken,
    dispatch_bundle: dispatchBundle(row, callbackToken),
    runtime_host_configured: Boolean(deps.runtimeHost.url),
  }
}

type StagedStatus = store.SupplierIntakeRow['status']

/** Move a staged record's status when it is in one of `from` (else 422 with its current status). */
async function moveStaged(
  tx: Sql,
  doctype: string,
  name: string,
  from: StagedStatus[],
  to: StagedStatus,
  at: string,
): Promise<void> {
  const row =
    doctype === 'Supplier Intake'
      ? await store.findSupplierIntakeTx(tx, name)
      : await store.findRevenueEventTx(tx, name)
  if (!row) throw notFound('target_not_found', `No ${doctype} is named ${name}.`)
  if (!from.includes(row.status)) {
    throw unprocessable(
      'invalid_status',
      `The ${doctype} is ${row.status}; this needs ${from.join(' or ')}.`,
      { status: row.status },
    )
  }
  const update = doctype === 'Supplier Intake' ? store.updateSupplierIntake : store.updateRevenueEvent
  await update(tx, name, { status: to, modified: at })
}

export const requestSupplierIntakeApproval = (
  deps: EisDeps,
  req: { name: string; approval_context?: Record<string, unknown>; expires_in_s?: number },
) =>
  requestApproval(deps, {
    target_doctype: 'Supplier Intake',
    target_name: req.name,
    approval_context: req.approval_context,
    expires_in_s: req.expires_in_s,
  })

export const requestRevenueEventApproval = (
  deps: EisDeps,
  req: { name: string; approval_context?: Record<string, unknown>; expires_in_s?: number },
) =>
  requestApproval(deps, {
    target_doctype: 'Revenue Event',
    target_name: req.name,
    approval_context: req.approval_context,
    expires_in_s: req.expires_in_s,
  })

async function loadPacket(deps: EisDeps, name: string): Promise<store.ApprovalPacketRow> {
  const p = await store.findPacket(deps.storage, name)
  if (!p) throw notFound('packet_not_found', 'No approval packet has this name.')
  return p
}

export async function getPacket(deps: EisDeps, name: string): Promise<PacketView> {
  return packetView(await loadPacket(deps, name), deps.now())
}

/**
 * Queue the packet for the runtime host (RMS) as a pending execution approval and mark it
 * dispatched: the outbox delivers it (retries with backoff; dead after its last attempt fails the
 * packet). RMS not configured: 503 and the packet stays requested.
 */
export async function dispatchPacket(
  deps: EisDeps,
  req: { packet: string; dispatch_options?: { redispatch?: boolean } },
) {
  const p = await loadPacket(deps, req.packet)
  const state = effectiveState(p.state, p.expiresAt, deps.now())
  if (state === 'dispatched' && !req.dispatch_options?.redispatch) {
    return { packet: packetView(p, deps.now()), dispatched: false, reason: 'already_dispatched' }
  }
  if (!isOpen(state)) throw unprocessable('packet_not_open', `The approval packet is ${state}.`, { state })
  if (!deps.runtimeHost.url)
    throw unavailable(
      'runtime_host_not_configured',
      'SVC_RMS_URL is not set; the packet cannot be dispatched.',
    )
  const at = new Date(deps.now()).toISOString()
  const attempt = Number((p.dispatch as { dispatches?: number } | null)?.dispatches ?? 0) + 1
  await deps.storage.transaction(async (tx) => {
    const outboxId = await enqueueIn(tx, {
      id: dispatchMessageId(p.name, attempt),
      target: RUNTIME_HOST_TARGET,
      payload: JSON.stringify(rmsApprovalBody(p)),
      at,
    })
    const dispatch = {
      target: 'runtime_host',
      rms_approval_id: p.name,
      outbox_id: outboxId,
      dispatches: attempt,
      delivery: 'queued',
      queued_at: at,
    }
    await store.updatePacket(tx, p.name, { state: 'dispatched', dispatch, modified: at })
  })
  deps.kickDispatch()
  return {
    packet: packetView((await store.findPacket(deps.storage, p.name)) as store.ApprovalPacketRow, deps.now()),
    dispatched: true,
    reason: null,
  }
}

export interface DecisionInput {
  packet: string
  decision: Decision
  /** Runtime-host callbacks prove themselves with the packet's callback token. */
  callback_token?: string
  actor: Record<string, unknown>
  via: 'runtime_host' | 'automation_hil'
}

/** Land a decision on a packet and on its staged target; the same decision again changes nothing. */
export async function decidePacket(deps: EisDeps, input: DecisionInput) {
  return deps.storage.transaction((tx) => decideInTx(tx, deps.now(), input))
}

/** `decidePacket` inside the caller's write transaction (callbacks add their evidence in the same one). */
export async function decideInTx(tx: Sql, now: number, input: DecisionInput) {
  const at = new Date(now).toISOString()
  const p = await store.findPacketTx(tx, input.packet)
  if (!p) throw notFound('packet_not_found', 'No approval packet has this name.')
  if (
    input.callback_token !== undefined &&
    !safeEqual(sha256Hex(input.callback_token), p.callbackTokenHash)
  ) {
    throw new AppError(403, 'callback_token_mismatch', 'The callback token does not belong to this packet.')
  }
  const state = effectiveState(p.state, p.expiresAt, now)
  const check = checkDecision(state, input.decision)
  if (!check.ok) throw conflict(check.code, check.message, { state })
  if (!check.replay) {
    await store.updatePacket(tx, p.name, {
      state: input.decision,
      decision: { decision: input.decision, via: input.via, actor: input.actor, decided_at: at },
      modified: at,
    })
    if (STAGED_DOCTYPES.has(p.targetDoctype)) {
      await moveStaged(
        tx,
        p.targetDoctype,
        p.targetName,
        ['pending_approval', 'staged', 'posting_error'],
        input.decision,
        at,
      )
    }
  }
  return {
    packet: packetView((await store.findPacketTx(tx, p.name)) as store.ApprovalPacketRow, now),
    replay: check.replay,
  }
}

export interface JobResult {
  correlation_id: string
  dispatch_id: string
  status: 'succeeded' | 'failed'
  detail?: Record<string, unknown>
}

/** An automation job's result: recorded on its packet; a failed job fails an open packet. */
export async function recordJobResult(deps: EisDeps, input: JobResult) {
  return deps.storage.transaction((tx) => jobResultInTx(tx, deps.now(), input))
}

export async function jobResultInTx(tx: Sql, now: number, input: JobResult) {
  const at = new Date(now).toISOString()
  const p = await store.findPacketByCorrelation(tx, input.correlation_id)
  if (!p) throw notFound('packet_not_found', 'No approval packet has this correlation_id.')
  const state = effectiveState(p.state, p.expiresAt, now)
  const job = {
    dispatch_id: input.dispatch_id,
    status: input.status,
    detail: input.detail ?? null,
    received_at: at,
  }
  const failNow = input.status === 'failed' && isOpen(state)
  await store.updatePacket(tx, p.name, {
    state: failNow ? 'failed' : state,
    dispatch: { ...p.dispatch, job },
    modified: at,
  })
  return { packet: packetView((await store.findPacketTx(tx, p.name)) as store.ApprovalPacketRow, now) }
}
