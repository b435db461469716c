/** Posting staged records as draft invoices (the spec's EIS state table). */
import { notFound, unprocessable } from '../../../common/errors.ts'
import { type PostingError, purchaseDraft, salesDraft } from '../rules/invoice.ts'
import * as store from '../store.ts'
import type { EisDeps } from './deps.ts'

export interface PostingResult {
  name: string
  status: 'posted'
  invoice_doctype: 'Purchase Invoice' | 'Sales Invoice'
  invoice: string
  docstatus: 0
  already_posted: boolean
}

function postingFailed(doctype: string, name: string, error: PostingError) {
  return unprocessable('posting_error', `The ${doctype} could not be posted: ${error.message}`, {
    name,
    status: 'posting_error',
    posting_error: error,
  })
}

/**
 * An approved Supplier Intake (or, with `force`, one staged, pending or in posting error; never a
 * rejected one) becomes a draft Purchase Invoice. Missing or inconsistent data puts the intake in
 * `posting_error` (422, kept on the intake); a posted intake answers its invoice again.
 */
export async function postSupplierIntake(
  deps: EisDeps,
  req: { name: string; force?: boolean },
): Promise<PostingResult> {
  const intake = await store.findSupplierIntake(deps.storage, req.name)
  if (!intake) throw notFound('supplier_intake_not_found', 'No Supplier Intake has this name.')
  if (intake.status === 'posted' && intake.purchaseInvoice) {
    return {
      name: intake.name,
      status: 'posted',
      invoice_doctype: 'Purchase Invoice',
      invoice: intake.purchaseInvoice,
      docstatus: 0,
      already_posted: true,
    }
  }
  if (intake.status === 'rejected')
    throw unprocessable(
      'approval_rejected',
      'The Supplier Intake was rejected; it is not posted, even with force.',
    )
  if (intake.status !== 'approved' && !req.force) {
    throw unprocessable(
      'approval_required',
      `The Supplier Intake is ${intake.status}; it needs an approval (or force).`,
      { status: intake.status },
    )
  }
  const at = new Date(deps.now()).toISOString()
  const built = purchaseDraft(intake.payload as Parameters<typeof purchaseDraft>[0])
  if (!built.ok) {
    await deps.storage.transaction((tx) =>
      store.updateSupplierIntake(tx, intake.name, {
        status: 'posting_error',
        postingError: built.error,
        modified: at,
      }),
    )
    throw postingFailed('Supplier Intake', intake.name, built.error)
  }
  const invoice = await deps.erp.createPurchaseInvoice(intake.name, built.draft, at)
  await deps.storage.transaction((tx) =>
    store.updateSupplierIntake(tx, intake.name, {
      status: 'posted',
      purchaseInvoice: invoice,
      postingError: null,
      modified: at,
    }),
  )
  return {
    name: intake.name,
    status: 'posted',
    invoice_doctype: 'Purchase Invoice',
    invoice,
    docstatus: 0,
    already_posted: false,
  }
}

/**
 * A staged (or approved, or earlier failed) Revenue Event becomes a draft Sales Invoice; one
 * awaiting or refused approval is not posted.
 */
export async function postRevenueEvent(deps: EisDeps, req: { name: string }): Promise<PostingResult> {
  const rev = await store.findRevenueEvent(deps.storage, req.name)
  if (!rev) throw notFound('revenue_event_not_found', 'No Revenue Event has this name.')
  if (rev.status === 'posted' && rev.salesInvoice) {
    return {
      name: rev.name,
      status: 'posted',
      invoice_doctype: 'Sales Invoice',
      invoice: rev.salesInvoice,
      docstatus: 0,
      already_posted: true,
    }
  }
  if (rev.status === 'rejected')
    throw unprocessable('approval_rejected', 'The Revenue Event was rejected; it is not posted.')
  if (rev.status === 'pending_approval')
    throw unprocessable('approval_pending', 'The Revenue Event awaits its approval.')
  const at = new Date(deps.now()).toISOString()
  const built = salesDraft(rev)
  if (!built.ok) {
    await deps.storage.transaction((tx) =>
      store.updateRevenueEvent(tx, rev.name, {
        status: 'posting_error',
        postingError: built.error,
        modified: at,
      }),
    )
    throw postingFailed('Revenue Event', rev.name, built.error)
  }
  const invoice = await deps.erp.createSalesInvoice(rev.name, built.draft, at)
  await deps.storage.transaction((tx) =>
    store.updateRevenueEvent(tx, rev.name, {
      status: 'posted',
      salesInvoice: invoice,
      postingError: null,
      modified: at,
    }),
  )
  return {
    name: rev.name,
    status: 'posted',
    invoice_doctype: 'Sales Invoice',
    invoice,
    docstatus: 0,
    already_posted: false,
  }
}
