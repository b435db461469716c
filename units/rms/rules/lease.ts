/** Lease decisions: who may hold a control-agent lease now. Pure; the store applies them in a transaction. */
export interface LeaseFacts {
  holder: string | null
  expiresAt: string | null
}

export type LeaseDecision =
  | { action: 'acquire' }
  | { action: 'renew' }
  | { action: 'take_over'; from: string }
  | { action: 'refuse'; holder: string; expiresAt: string }

export function decideLease(current: LeaseFacts | undefined, me: string, now: Date): LeaseDecision {
  if (!current || current.holder === null || current.expiresAt === null) return { action: 'acquire' }
  if (current.holder === me) return { action: 'renew' }
  if (Date.parse(current.expiresAt) <= now.getTime()) return { action: 'take_over', from: current.holder }
  return { action: 'refuse', holder: current.holder, expiresAt: current.expiresAt }
}
