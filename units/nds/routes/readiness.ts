import { Elysia } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { Gate } from '../model.ts'
import type { NdsDeps } from '../service/deps.ts'
import {
  dashboardSummary,
  incidentReadinessGates,
  paymentReadiness,
  penTestEvidence,
  secretReadiness,
  securityComplianceGates,
  sloGates,
  tlsProxyReadiness,
} from '../service/readiness.ts'

const response = { 200: Gate, ...errorResponses(401) }

export const readinessRoutes = (deps: NdsDeps, workerRunning: () => boolean) =>
  new Elysia({ name: 'nds:readiness' }).use(deps.auth).guard({ auth: 'apiKey', response }, (app) =>
    app
      .get('/v1/research/operational-dashboard-summary', () => dashboardSummary(deps, workerRunning), {
        detail: { summary: 'Operations summary: database, worker, stuck jobs, freshness, counts' },
      })
      .get('/v1/research/operational-slo-gates', () => sloGates(deps), {
        detail: { summary: 'SLO gates: ingest failure ratio over 24 h, freshness, stuck jobs' },
      })
      .get('/v1/research/security-compliance-gates', () => securityComplianceGates(deps), {
        detail: { summary: 'Security compliance: hashed keys, webhook signatures, TLS posture' },
      })
      .get('/v1/research/incident-readiness-gates', () => incidentReadinessGates(deps), {
        detail: {
          summary: 'Incident readiness: writable database, WAL, job recovery, unmatched notifications',
        },
      })
      .get('/v1/research/security-pen-test-evidence', () => penTestEvidence(deps), {
        detail: { summary: 'Penetration-test evidence: date and report location' },
      })
      .get('/v1/research/secret-readiness', () => secretReadiness(deps), {
        detail: { summary: 'Secrets: Paddle and NewsAPI credentials, API key rotation age' },
      })
      .get('/v1/research/payment-readiness', () => paymentReadiness(deps), {
        detail: {
          summary:
            'Payment readiness (the spec publishes paddle-readiness under this path), with a live Paddle API check',
        },
      })
      .get('/v1/research/tls-proxy-readiness', () => tlsProxyReadiness(deps), {
        detail: { summary: 'TLS and proxy settings from runtime_config' },
      }),
  )
