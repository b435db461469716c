/**
 * Billing through Paddle Billing's API (checkout creates a transaction, the customer portal a
 * portal session) and the Paddle webhook: idempotent by notification id, updating the account's
 * subscription state; notifications for unknown accounts are acknowledged and recorded.
 */
import { Type as T } from '@sinclair/typebox'
import { notFound, unavailable, unprocessable } from '../../../common/errors.ts'
import { callPeer } from '../../../common/peer.ts'
import type { Caller } from '../auth.ts'
import type { Account } from '../store.ts'
import type { NdsDeps } from './deps.ts'

const TransactionAnswer = T.Object({
  data: T.Object({
    id: T.String(),
    status: T.String(),
    customer_id: T.Optional(T.Union([T.String(), T.Null()])),
    checkout: T.Union([T.Object({ url: T.Union([T.String(), T.Null()]) }), T.Null()]),
  }),
})

const PortalAnswer = T.Object({
  data: T.Object({ urls: T.Object({ general: T.Object({ overview: T.String() }) }) }),
})

async function ownedAccount(deps: NdsDeps, caller: Caller, accountId: string): Promise<Account> {
  const account = accountId === caller.accountId ? await deps.store.getAccount(accountId) : undefined
  if (!account) throw notFound('account_not_found', 'No such account.')
  return account
}

function paddleKey(deps: NdsDeps): string {
  const key = deps.settings.paddleApiKey
  if (!key)
    throw unavailable('billing_not_configured', 'Billing is not configured (NDS_PADDLE_API_KEY is unset).')
  return key
}

const endpoint = (deps: NdsDeps, path: string) => `${deps.settings.paddleApiUrl.replace(/\/+$/, '')}${path}`

const providerFailure = (message: string) =>
  unavailable(
    'payment_provider_unavailable',
    `The payment provider did not complete the request: ${message}.`,
  )

export async function checkout(
  deps: NdsDeps,
  caller: Caller,
  accountId: string,
  body: { price_id?: string; quantity?: number },
) {
  const account = await ownedAccount(deps, caller, accountId)
  const key = paddleKey(deps)
  const priceId = body.price_id ?? deps.settings.paddlePriceId
  if (!priceId) throw unprocessable('price_missing', 'No price: send price_id or set NDS_PADDLE_PRICE_ID.')
  const res = await callPeer({
    url: endpoint(deps, '/transactions'),
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    json: {
      items: [{ price_id: priceId, quantity: body.quantity ?? 1 }],
      collection_mode: 'automatic',
      custom_data: { account_id: account.accountId },
      ...(account.paddleCustomerId ? { customer_id: account.paddleCustomerId } : {}),
    },
    timeoutMs: deps.settings.peerTimeoutMs,
    schema: TransactionAnswer,
  })
  if (!res.ok) throw providerFailure(res.message)
  const url = res.body.data.checkout?.url
  if (!url) throw providerFailure('the transaction has no checkout URL (is a default payment link set?)')
  if (res.body.data.customer_id && !account.paddleCustomerId) {
    await deps.store.updateBilling(account.accountId, { paddleCustomerId: res.body.data.customer_id })
  }
  return {
    account_id: account.accountId,
    transaction_id: res.body.data.id,
    status: res.body.data.status,
    checkout_url: url,
  }
}

export async function customerPortal(deps: NdsDeps, caller: Caller, accountId: string) {
  const account = await ownedAccount(deps, caller, accountId)
  const key = paddleKey(deps)
  const customerId = account.paddleCustomerId
  if (!customerId)
    throw unprocessable(
      'no_billing_customer',
      'This account has no Paddle customer yet: complete a checkout first.',
    )
  const res = await callPeer({
    url: endpoint(deps, `/customers/${encodeURIComponent(customerId)}/portal-sessions`),
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    json: account.subscriptionId ? { subscription_ids: [account.subscriptionId] } : {},
    timeoutMs: deps.settings.peerTimeoutMs,
    schema: PortalAnswer,
  })
  if (!res.ok) throw providerFailure(res.message)
  return {
    account_id: account.accountId,
    customer_id: customerId,
    portal_url: res.body.data.urls.general.overview,
  }
}

// ---- webhook

export interface PaddleNotification {
  notification_id?: string
  event_id: string
  event_type: string
  occurred_at: string
  data: Record<string, unknown>
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)

/** Apply one verified notification; the same notification id twice changes nothing the second time. */
export async function receivePaddle(deps: NdsDeps, n: PaddleNotification, raw: string) {
  const notificationId = n.notification_id ?? n.event_id
  const customData = (n.data.custom_data ?? {}) as Record<string, unknown>
  const customerId = str(n.data.customer_id)
  const byCustom = str(customData.account_id)
  const account =
    (byCustom ? await deps.store.getAccount(byCustom) : undefined) ??
    (customerId ? await deps.store.findAccountByCustomer(customerId) : undefined)
  const outcome = !account ? 'unknown_account' : applies(n, account) ? 'applied' : 'ignored'
  const fresh = await deps.store.recordNotification({
    notificationId,
    eventType: n.event_type,
    accountId: account?.accountId ?? null,
    outcome,
    payload: raw,
  })
  if (!fresh) return { received: true, notification_id: notificationId, outcome: 'duplicate' }
  if (account && outcome === 'applied') {
    const isSubscription = n.event_type.startsWith('subscription.')
    await deps.store.updateBilling(account.accountId, {
      ...(customerId ? { paddleCustomerId: customerId } : {}),
      ...(isSubscription
        ? {
            subscriptionId: str(n.data.id) ?? account.subscriptionId,
            subscriptionStatus: str(n.data.status) ?? account.subscriptionStatus,
          }
        : {}),
      subscriptionUpdatedAt: isSubscription ? n.occurred_at : account.subscriptionUpdatedAt,
    })
  }
  if (!account)
    deps.log.warn(
      { notification_id: notificationId, event_type: n.event_type },
      'paddle notification for an unknown account recorded',
    )
  return { received: true, notification_id: notificationId, outcome }
}

/** Subscription events older than the state already held are out of order: recorded, not applied. */
function applies(n: PaddleNotification, account: Account): boolean {
  if (
    !n.event_type.startsWith('subscription.') &&
    !n.event_type.startsWith('transaction.') &&
    !n.event_type.startsWith('customer.')
  )
    return false
  if (!n.event_type.startsWith('subscription.')) return true
  return (
    !account.subscriptionUpdatedAt || Date.parse(n.occurred_at) >= Date.parse(account.subscriptionUpdatedAt)
  )
}
