import { Elysia } from 'elysia'
import { jsonView } from '../../../common/json-view.ts'
import {
  AgentContractsResponse,
  AgentWorkflowResponse,
  DependencyGraphResponse,
  EventCatalogResponse,
  ProjectionCatalogResponse,
  ServicesResponse,
  VersionTruthResponse,
} from '../model.ts'
import type { PrsDeps } from '../service/deps.ts'

export const platformRoutes = ({ views }: PrsDeps) =>
  new Elysia({ name: 'prs:platform', prefix: '/api/v1' })
    .get('/platform/projection-catalog', jsonView(ProjectionCatalogResponse, views.projectionCatalog), {
      response: { 200: ProjectionCatalogResponse },
      detail: { summary: 'Projection catalog' },
    })
    .get('/platform/version-truth', jsonView(VersionTruthResponse, views.versionTruth), {
      response: { 200: VersionTruthResponse },
      detail: { summary: 'Version truth: contract versions and what live manifests publish' },
    })
    .get('/platform/services', jsonView(ServicesResponse, views.servicesView), {
      response: { 200: ServicesResponse },
      detail: { summary: 'Services list with observed liveness' },
    })
    .get('/event-modeling/catalog', jsonView(EventCatalogResponse, views.eventCatalog), {
      response: { 200: EventCatalogResponse },
      detail: { summary: 'Event-modeling catalog' },
    })
    .get('/event-modeling/dependency-graph', jsonView(DependencyGraphResponse, views.dependencyGraph), {
      response: { 200: DependencyGraphResponse },
      detail: { summary: 'Dependency graph between units by family' },
    })
    .get('/agent/contracts', jsonView(AgentContractsResponse, views.agentContracts), {
      response: { 200: AgentContractsResponse },
      detail: { summary: 'Agent contracts' },
    })
    .get('/agent/workflow', jsonView(AgentWorkflowResponse, views.agentWorkflow), {
      response: { 200: AgentWorkflowResponse },
      detail: { summary: 'Agent workflow: read order and admission review order' },
    })
