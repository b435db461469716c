/**
 * Draft invoices from staged records: what must be present and add up before EIS posts. A
 * failure is a posting error with a code, kept on the staged record.
 */
import type { InvoiceItem } from '../tables.ts'

export interface PostingError {
  code: string
  message: string
  details?: unknown
}

export interface PurchaseDraft {
  supplier: string
  bill_no: string | null
  currency: string
  grand_total: number
  items: InvoiceItem[]
}

export interface SalesDraft {
  customer: string
  currency: string
  grand_total: number
  items: InvoiceItem[]
}

/** Amounts agree when they differ by less than half a cent. */
export const TOTAL_TOLERANCE = 0.005

type Money = number | string | undefined
const num = (v: Money): number | undefined => (v === undefined || v === '' ? undefined : Number(v))
const round2 = (n: number) => Math.round(n * 100) / 100

interface SupplierPayload {
  vendor?: { name?: string }
  invoice?: { number?: string; currency?: string }
  totals?: { net_total?: Money; tax_total?: Money; grand_total?: Money }
  line_items?: { description?: string; quantity?: Money; unit_price?: Money; amount?: Money }[]
}

export function purchaseDraft(
  payload: SupplierPayload,
): { ok: true; draft: PurchaseDraft } | { ok: false; error: PostingError } {
  const missing: string[] = []
  if (!payload.vendor?.name) missing.push('vendor.name')
  if (!payload.invoice?.currency) missing.push('invoice.currency')
  if (num(payload.totals?.grand_total) === undefined) missing.push('totals.grand_total')
  if (!payload.line_items || payload.line_items.length === 0) missing.push('line_items')
  if (missing.length > 0)
    return {
      ok: false,
      error: {
        code: 'incomplete_intake',
        message: 'The supplier intake lacks fields a Purchase Invoice needs.',
        details: { missing },
      },
    }
  const items: InvoiceItem[] = []
  for (const [i, line] of (payload.line_items ?? []).entries()) {
    const qty = num(line.quantity) ?? 1
    const rate = num(line.unit_price)
    const amount = num(line.amount) ?? (rate === undefined ? undefined : qty * rate)
    if (amount === undefined || !Number.isFinite(amount) || !Number.isFinite(qty)) {
      return {
        ok: false,
        error: {
          code: 'invalid_line_item',
          message: `Line item ${i + 1} has no usable amount.`,
          details: { line: i + 1 },
        },
      }
    }
    items.push({
      item_name: line.description || `Line ${i + 1}`,
      qty,
      rate: rate ?? round2(amount / (qty || 1)),
      amount: round2(amount),
    })
  }
  const net = round2(items.reduce((s, it) => s + it.amount, 0))
  const grand = num(payload.totals?.grand_total) as number
  const expectedNet = num(payload.totals?.net_total) ?? grand - (num(payload.totals?.tax_total) ?? 0)
  if (Math.abs(net - expectedNet) >= TOTAL_TOLERANCE) {
    return {
      ok: false,
      error: {
        code: 'totals_mismatch',
        message: 'The line items do not add up to the stated net total.',
        details: { line_items_total: net, net_total: round2(expectedNet) },
      },
    }
  }
  return {
    ok: true,
    draft: {
      supplier: payload.vendor?.name as string,
      bill_no: payload.invoice?.number ?? null,
      currency: (payload.invoice?.currency ?? '').toUpperCase(),
      grand_total: round2(grand),
      items,
    },
  }
}

export function salesDraft(rev: {
  customer: string | null
  currency: string
  amount: number
  description: string | null
}): { ok: true; draft: SalesDraft } | { ok: false; error: PostingError } {
  if (!rev.customer)
    return {
      ok: false,
      error: {
        code: 'customer_missing',
        message: 'The revenue event names no customer; a Sales Invoice needs one.',
      },
    }
  if (!(rev.amount > 0))
    return {
      ok: false,
      error: {
        code: 'non_positive_amount',
        message: 'A Sales Invoice needs a positive amount.',
        details: { amount: rev.amount },
      },
    }
  const amount = round2(rev.amount)
  return {
    ok: true,
    draft: {
      customer: rev.customer,
      currency: rev.currency,
      grand_total: amount,
      items: [{ item_name: rev.description ?? 'Payment', qty: 1, rate: amount, amount }],
    },
  }
}
