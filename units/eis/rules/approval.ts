/**
 * Approval Packet states (docs/units/eis.md):
 *
 *   requested ──dispatch──▶ dispatched
 *   requested | dispatched ──decision──▶ approved | rejected
 *   requested | dispatched ──job failed──▶ failed
 *   requested | dispatched ──past expires_at──▶ expired
 *
 * approved, rejected, failed and expired are final.
 */
import type { APPROVAL_STATES } from '../tables.ts'

export type PacketState = (typeof APPROVAL_STATES)[number]
export type Decision = 'approved' | 'rejected'

export const OPEN_STATES: readonly PacketState[] = ['requested', 'dispatched']
export const isOpen = (state: PacketState) => OPEN_STATES.includes(state)

/** The state a packet is really in at `now`: an open packet past its expiry is expired. */
export function effectiveState(state: PacketState, expiresAt: string, now: number): PacketState {
  return isOpen(state) && Date.parse(expiresAt) <= now ? 'expired' : state
}

export type DecisionCheck =
  | { ok: true; replay: boolean }
  | { ok: false; code: 'packet_expired' | 'packet_decided' | 'packet_failed'; message: string }

/** Whether a decision may land on a packet in this state; the same decision again is a harmless replay. */
export function checkDecision(state: PacketState, decision: Decision): DecisionCheck {
  if (isOpen(state)) return { ok: true, replay: false }
  if (state === decision) return { ok: true, replay: true }
  if (state === 'expired')
    return {
      ok: false,
      code: 'packet_expired',
      message: 'The approval packet expired before a decision arrived.',
    }
  if (state === 'failed')
    return { ok: false, code: 'packet_failed', message: 'The approval packet failed; request a new one.' }
  return {
    ok: false,
    code: 'packet_decided',
    message: `The approval packet is already ${state}; decisions are final.`,
  }
}

/** Doctypes an approval may target, and whether EIS moves the target's own status with the decision. */
export const APPROVABLE_DOCTYPES = [
  'Supplier Intake',
  'Revenue Event',
  'Purchase Invoice',
  'Sales Invoice',
  'Lead',
] as const
export const STAGED_DOCTYPES = new Set<string>(['Supplier Intake', 'Revenue Event'])
