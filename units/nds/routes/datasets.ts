import { Elysia, t } from 'elysia'
import { errorResponses } from '../../../common/errors.ts'
import { callerOf } from '../auth.ts'
import {
  ExportParams,
  ExportRequest,
  SimulationExport,
  Snapshot,
  SnapshotFileParams,
  SnapshotParams,
  SnapshotRequest,
} from '../model.ts'
import {
  createExport,
  createSnapshot,
  downloadSnapshotFile,
  getExport,
  getSnapshot,
} from '../service/datasets.ts'
import type { NdsDeps } from '../service/deps.ts'

const writeErrors = errorResponses(400, 401, 413, 415, 422)
const readErrors = errorResponses(401, 404)

export const datasetRoutes = (deps: NdsDeps) =>
  new Elysia({ name: 'nds:datasets' }).use(deps.auth).guard({ auth: 'apiKey' }, (app) =>
    app
      .post(
        '/v1/datasets/snapshots',
        async ({ body, principal, set }) => {
          set.status = 201
          return createSnapshot(deps, callerOf(principal), body)
        },
        {
          body: SnapshotRequest,
          response: { 201: Snapshot, ...writeErrors },
          detail: { summary: 'Freeze a query into a JSONL dataset with a manifest (sha256 per file)' },
        },
      )
      .get(
        '/v1/datasets/snapshots/:snapshot_id',
        ({ params, principal }) => getSnapshot(deps, callerOf(principal), params.snapshot_id),
        {
          params: SnapshotParams,
          response: { 200: Snapshot, ...readErrors },
          detail: { summary: 'A dataset snapshot and its manifest' },
        },
      )
      .get(
        '/v1/datasets/snapshots/:snapshot_id/files/:file_name',
        ({ params, principal }) =>
          downloadSnapshotFile(deps, callerOf(principal), params.snapshot_id, params.file_name),
        {
          params: SnapshotFileParams,
          response: {
            200: t.String({ description: 'the file, byte for byte as the manifest hashes it' }),
            ...readErrors,
          },
          detail: { summary: 'Download a snapshot file (same bytes on every download)' },
        },
      )
      .post(
        '/v1/exports/simulation',
        async ({ body, principal, set }) => {
          set.status = 201
          return createExport(deps, callerOf(principal), body)
        },
        {
          body: ExportRequest,
          response: { 201: SimulationExport, ...writeErrors },
          detail: {
            summary: 'Time-bucketed article and event series for a query, as JSON or CSV',
            description: '422 date_range_invalid, date_range_too_long.',
          },
        },
      )
      .get(
        '/v1/exports/:export_id',
        ({ params, principal }) => getExport(deps, callerOf(principal), params.export_id),
        {
          params: ExportParams,
          response: { 200: SimulationExport, ...readErrors },
          detail: { summary: 'A simulation export' },
        },
      ),
  )
