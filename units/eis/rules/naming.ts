import { newId } from '../../../common/time.ts'

/** Frappe-style document names with a series prefix (`LEAD-…`); the suffix is a UUIDv7, so names sort by creation. */
export const SERIES = {
  event: 'EVT',
  lead: 'LEAD',
  supplierIntake: 'SINT',
  revenueEvent: 'REV',
  packet: 'APKT',
  purchaseInvoice: 'PINV',
  salesInvoice: 'SINV',
} as const

export const docName = (series: string) => `${series}-${newId()}`
