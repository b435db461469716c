import { Elysia } from 'elysia'
import { ErrorEnvelope } from '../../../common/errors.ts'
import { jsonView } from '../../../common/json-view.ts'
import {
  AdmissionGovernanceResponse,
  CompatibilityRequest,
  CompatibilityResponse,
  DocsStandardResponse,
  DriftResponse,
  MatrixResponse,
  RegistryResponse,
} from '../model.ts'
import { checkCompatibility } from '../service/checks.ts'
import type { PrsDeps } from '../service/deps.ts'

export const contractRoutes = (deps: PrsDeps) => {
  const { views } = deps
  return new Elysia({ name: 'prs:contracts', prefix: '/api/v1/contracts' })
    .get('/registry', jsonView(RegistryResponse, views.registry), {
      response: { 200: RegistryResponse },
      detail: { summary: 'Contract registry derived from the units’ contract files' },
    })
    .get('/matrix', jsonView(MatrixResponse, views.matrix), {
      response: { 200: MatrixResponse },
      detail: {
        summary: 'Producer x consumer family matrix (producer_families, consumer_families, version)',
      },
    })
    .get('/drift', jsonView(DriftResponse, views.driftView), {
      response: { 200: DriftResponse },
      detail: { summary: 'Drift between contracts, manifests, docs and live surfaces' },
    })
    .get('/docs-standard', jsonView(DocsStandardResponse, views.docsStandard), {
      response: { 200: DocsStandardResponse },
      detail: { summary: 'Docs standard: sections, heading words, who requires what' },
    })
    .get('/admission-governance', jsonView(AdmissionGovernanceResponse, views.admissionGovernance), {
      response: { 200: AdmissionGovernanceResponse },
      detail: { summary: 'Admission governance: review order, required input, checklist' },
    })
    .post(
      '/compatibility/check',
      async ({ body }) => {
        const result = await checkCompatibility(views, deps.storage, body)
        deps.counters.compatibility.inc({ result: result.is_compatible ? 'compatible' : 'incompatible' })
        return { generated_at: new Date().toISOString(), contract_version: views.contract_version, ...result }
      },
      {
        body: CompatibilityRequest,
        response: { 200: CompatibilityResponse, 400: ErrorEnvelope, 422: ErrorEnvelope },
        detail: { summary: 'Compatibility of a proposed unit or family contract under a Confluent mode' },
      },
    )
}
