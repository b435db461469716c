import { Elysia } from 'elysia'
import type { PrsDeps } from '../deps.ts'
import {
  AgentContractsResponse,
  AgentWorkflowResponse,
  DependencyGraphResponse,
  EventCatalogResponse,
  ProjectionCatalogResponse,
  ServicesResponse,
  VersionTruthResponse,
} from '../model.ts'

export const platformRoutes = ({ views }: PrsDeps) =>
  new Elysia({ name: 'prs:platform', prefix: '/api/v1' })
    .get('/platform/projection-catalog', () => views.projectionCatalog(), {
      response: { 200: ProjectionCatalogResponse },
      detail: { summary: 'Projection catalog' },
    })
    .get('/platform/version-truth', () => views.versionTruth(), {
      response: { 200: VersionTruthResponse },
      detail: { summary: 'Version truth: contract versions and what live manifests publish' },
    })
    .get('/platform/services', () => views.servicesView(), {
      response: { 200: ServicesResponse },
      detail: { summary: 'Services list with observed liveness' },
    })
    .get('/event-modeling/catalog', () => views.eventCatalog(), {
      response: { 200: EventCatalogResponse },
      detail: { summary: 'Event-modeling catalog' },
    })
    .get('/event-modeling/dependency-graph', () => views.dependencyGraph(), {
      response: { 200: DependencyGraphResponse },
      detail: { summary: 'Dependency graph between units by family' },
    })
    .get('/agent/contracts', () => views.agentContracts(), {
      response: { 200: AgentContractsResponse },
      detail: { summary: 'Agent contracts' },
    })
    .get('/agent/workflow', () => views.agentWorkflow(), {
      response: { 200: AgentWorkflowResponse },
      detail: { summary: 'Agent workflow: read order and admission review order' },
    })
