/** Signed callbacks: each lands on its approval packet with its evidence, in one transaction. */
import { newId } from '../../../common/time.ts'
import type { Sql } from '../../../db/storage.ts'
import {
  type DecisionInput,
  decideInTx,
  getPacket,
  type JobResult,
  jobResultInTx,
  type PacketView,
} from './approvals.ts'
import type { EisDeps } from './deps.ts'
import { acceptDelivery } from './evidence.ts'

export const CALLBACK_SOURCES = {
  runtimeHost: 'callbacks.runtime_host_approval',
  jobResult: 'callbacks.automation_job_result',
  hil: 'callbacks.automation_hil_decision',
} as const

/** Run `apply` with the callback's evidence; the evidence key is the Idempotency-Key, else a new id. */
async function withEvidence(
  deps: EisDeps,
  source: string,
  raw: string,
  idempotencyKey: string | undefined,
  apply: (tx: Sql, now: number) => Promise<{ packet: PacketView; replay?: boolean }>,
) {
  let result: { packet: PacketView; replay?: boolean } | undefined
  const accepted = await acceptDelivery(
    deps.storage,
    { source, eventKey: idempotencyKey ?? newId(), raw },
    async (tx) => {
      result = await apply(tx, deps.now())
      return {
        status: 'processed',
        outcome: { packet: result.packet.name, state: result.packet.state, replay: result.replay ?? false },
        reference: { doctype: 'Approval Packet', name: result.packet.name },
      }
    },
  )
  // A redelivery whose stored answer is gone from the idempotency store: answer the packet as it is now.
  const packet = result?.packet ?? (await getPacket(deps, accepted.event.referenceName as string))
  return { ok: true as const, integration_event: accepted.event.name, packet, replay: result?.replay ?? true }
}

export const runtimeHostApproval = (
  deps: EisDeps,
  raw: string,
  key: string | undefined,
  body: {
    packet: string
    callback_token: string
    decision: DecisionInput['decision']
    actor?: Record<string, unknown>
  },
) =>
  withEvidence(deps, CALLBACK_SOURCES.runtimeHost, raw, key, (tx, now) =>
    decideInTx(tx, now, {
      packet: body.packet,
      decision: body.decision,
      callback_token: body.callback_token,
      actor: body.actor ?? {},
      via: 'runtime_host',
    }),
  )

export const automationHilDecision = (
  deps: EisDeps,
  raw: string,
  key: string | undefined,
  body: { packet: string; decision: DecisionInput['decision']; actor?: Record<string, unknown> },
) =>
  withEvidence(deps, CALLBACK_SOURCES.hil, raw, key, (tx, now) =>
    decideInTx(tx, now, {
      packet: body.packet,
      decision: body.decision,
      actor: body.actor ?? {},
      via: 'automation_hil',
    }),
  )

export const automationJobResult = (deps: EisDeps, raw: string, key: string | undefined, body: JobResult) =>
  withEvidence(deps, CALLBACK_SOURCES.jobResult, raw, key, (tx, now) => jobResultInTx(tx, now, body))
