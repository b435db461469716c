import { Elysia, t } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { paddle, signaturePlugin } from '../../../common/signature.ts'
import { callerOf } from '../auth.ts'
import {
  AccountParams,
  CheckoutRequest,
  CheckoutResponse,
  PaddleAck,
  PaddleNotificationBody,
  PortalResponse,
} from '../model.ts'
import { checkout, customerPortal, receivePaddle } from '../service/billing.ts'
import type { NdsDeps } from '../service/deps.ts'

export const paddleSignatures = (deps: NdsDeps) =>
  signaturePlugin({ paddleSignature: { profile: paddle(), secrets: [deps.settings.paddleWebhookSecret] } })

export const billingRoutes = (deps: NdsDeps, signatures: ReturnType<typeof paddleSignatures>) =>
  new Elysia({ name: 'nds:billing' })
    .use(deps.auth)
    .use(signatures)
    .guard({ auth: 'apiKey' }, (app) =>
      app
        .post(
          '/v1/accounts/:account_id/billing/checkout',
          ({ params, body, principal }) => checkout(deps, callerOf(principal), params.account_id, body ?? {}),
          {
            params: AccountParams,
            body: t.Optional(CheckoutRequest),
            response: { 200: CheckoutResponse, ...errorResponses(400, 401, 404, 413, 415, 422, 503) },
            detail: {
              summary: 'Create a Paddle transaction for the account and return its checkout URL',
              description:
                '404 account_not_found (also for another key’s account). 422 price_missing. 503 billing_not_configured, payment_provider_unavailable.',
            },
          },
        )
        .post(
          '/v1/accounts/:account_id/billing/customer-portal',
          ({ params, principal }) => customerPortal(deps, callerOf(principal), params.account_id),
          {
            params: AccountParams,
            response: { 200: PortalResponse, ...errorResponses(401, 404, 422, 503) },
            detail: {
              summary: 'Create a Paddle customer portal session for the account',
              description:
                '422 no_billing_customer. 503 billing_not_configured, payment_provider_unavailable.',
            },
          },
        ),
    )
    .post(
      '/v1/webhooks/paddle',
      ({ body, rawBody }) => receivePaddle(deps, body, new TextDecoder().decode(rawBody.bytes)),
      {
        signed: 'paddleSignature',
        body: PaddleNotificationBody,
        response: { 200: PaddleAck, ...errorResponses(400, 401, 413, 415, 503) },
        detail: {
          summary:
            'Paddle Billing notifications (Paddle-Signature, 5-minute tolerance; idempotent by notification_id)',
          description:
            '401 signature_missing, signature_invalid, signature_expired, signature_replayed. 503 signature_not_configured.',
        },
      },
    )
