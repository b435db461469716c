import { Elysia } from 'elysia'
import { jsonView } from '../../../common/json-view.ts'
import { ObservabilityResponse, RecoveryResponse, SecurityResponse, SignoffResponse } from '../model.ts'
import type { PrsDeps } from '../service/deps.ts'

export const readinessRoutes = ({ views }: PrsDeps) =>
  new Elysia({ name: 'prs:readiness', prefix: '/api/v1' })
    .get('/observability/readiness', jsonView(ObservabilityResponse, views.observability), {
      response: { 200: ObservabilityResponse },
      detail: { summary: 'Observability readiness' },
    })
    .get('/security/readiness', jsonView(SecurityResponse, views.security), {
      response: { 200: SecurityResponse },
      detail: { summary: 'Security readiness' },
    })
    .get('/recovery/readiness', jsonView(RecoveryResponse, views.recovery), {
      response: { 200: RecoveryResponse },
      detail: { summary: 'Recovery readiness' },
    })
    .get('/signoff/readiness', jsonView(SignoffResponse, views.signoff), {
      response: { 200: SignoffResponse },
      detail: { summary: 'Signoff readiness, in the spec’s read order' },
    })
