/**
 * What a payment-provider event means for revenue: the normalized revenue data, or null for an
 * event type that carries none (refunds and disputes are recorded as evidence and not staged).
 */

/** Event types that confirm money received. */
export const PROVIDER_A_REVENUE_TYPES = new Set([
  'payment_intent.succeeded',
  'charge.succeeded',
  'invoice.paid',
  'checkout.session.completed',
])
export const PROVIDER_B_REVENUE_TYPES = new Set(['transaction.completed', 'transaction.paid'])

/** ISO 4217 currencies without minor units; every other currency has two decimals here. */
const ZERO_DECIMAL = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
])

export function fromMinorUnits(amount: number | string, currency: string): number {
  const minor = typeof amount === 'string' ? Number(amount) : amount
  return ZERO_DECIMAL.has(currency) ? minor : Math.round(minor) / 100
}

export interface RevenueData {
  providerEventId: string
  eventType: string
  currency: string
  amount: number
  customer: string | null
  description: string | null
}

export type ProviderName = 'payment_provider_a' | 'payment_provider_b'

type Amount = number | string
interface AEvent {
  id: string
  type: string
  data: {
    object: {
      id?: string
      amount?: Amount
      amount_received?: Amount
      amount_paid?: Amount
      amount_total?: Amount
      currency?: string
      customer?: string | null
      description?: string | null
    }
  }
}
interface BEvent {
  event_id: string
  event_type: string
  data: {
    id?: string
    currency_code?: string
    customer_id?: string | null
    details?: { totals?: { grand_total?: Amount; total?: Amount } }
  }
}

/** Provider A: amounts in minor units on the event's object; lower-case currency. */
export function revenueFromA(e: AEvent): RevenueData | null {
  if (!PROVIDER_A_REVENUE_TYPES.has(e.type)) return null
  const o = e.data.object
  const minor = o.amount_received ?? o.amount_paid ?? o.amount_total ?? o.amount
  if (minor === undefined || !o.currency) return null
  const currency = o.currency.toUpperCase()
  return {
    providerEventId: e.id,
    eventType: e.type,
    currency,
    amount: fromMinorUnits(minor, currency),
    customer: o.customer ?? null,
    description: o.description ?? (o.id ? `${e.type} ${o.id}` : e.type),
  }
}

/** Provider B: totals as strings of minor units under data.details.totals. */
export function revenueFromB(e: BEvent): RevenueData | null {
  if (!PROVIDER_B_REVENUE_TYPES.has(e.event_type)) return null
  const totals = e.data.details?.totals
  const minor = totals?.grand_total ?? totals?.total
  if (minor === undefined || !e.data.currency_code) return null
  const currency = e.data.currency_code.toUpperCase()
  return {
    providerEventId: e.event_id,
    eventType: e.event_type,
    currency,
    amount: fromMinorUnits(minor, currency),
    customer: e.data.customer_id ?? null,
    description: e.data.id ? `${e.event_type} ${e.data.id}` : e.event_type,
  }
}
