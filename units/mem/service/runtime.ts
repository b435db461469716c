/** MEM's peers: the OpenAI-compatible embedding runtime and Qdrant's REST API, through callPeer. */
import { type Static, Type as T, type TSchema } from '@sinclair/typebox'
import { type Observation, observe } from '../../../common/cli.ts'
import { callPeer } from '../../../common/peer.ts'
import {
  CollectionBody,
  CollectionsBody,
  type Distance,
  EmbeddingsBody,
  ModelsBody,
  SearchBody,
} from '../model.ts'

export interface RuntimeConfig {
  MEM_EMBEDDING_URL?: string
  MEM_EMBEDDING_MODEL?: string
  MEM_EMBEDDING_API_KEY?: string
  MEM_VECTOR_STORE_URL?: string
  MEM_VECTOR_STORE_API_KEY?: string
  MEM_COLLECTION: string
  MEM_VECTOR_DISTANCE: Distance
  MEM_VECTOR_SIZE?: number
  MEM_TIMEOUT_MS: number
}

/** A call's answer, or why there is none (never throws). */
export type Answer<T> = { ok: true; body: T } | { ok: false; observation: Observation }

const url = (base: string | undefined, path: string) =>
  base ? `${base.replace(/\/+$/, '')}${path}` : undefined
const embeddingHeaders = (c: RuntimeConfig): Record<string, string> =>
  c.MEM_EMBEDDING_API_KEY ? { authorization: `Bearer ${c.MEM_EMBEDDING_API_KEY}` } : {}
const qdrantHeaders = (c: RuntimeConfig): Record<string, string> =>
  c.MEM_VECTOR_STORE_API_KEY ? { 'api-key': c.MEM_VECTOR_STORE_API_KEY } : {}

export async function call<S extends TSchema>(
  c: RuntimeConfig,
  target: string | undefined,
  headers: Record<string, string>,
  schema: S,
  init: { method?: 'GET' | 'POST' | 'PUT'; json?: unknown; acceptStatus?: number[] } = {},
): Promise<Answer<Static<S>> & { status?: number }> {
  const res = await callPeer({ url: target, headers, schema, timeoutMs: c.MEM_TIMEOUT_MS, ...init })
  if (res.ok) return { ok: true, body: res.body as Static<S>, status: res.status }
  return {
    ok: false,
    status: res.status,
    observation: {
      url: target ?? null,
      ok: false,
      status: res.status ?? null,
      failure: res.reason,
      message: res.message,
      body: null,
    },
  }
}

export const readyz = (c: RuntimeConfig) =>
  observe(url(c.MEM_EMBEDDING_URL, '/readyz'), {
    timeoutMs: c.MEM_TIMEOUT_MS,
    headers: embeddingHeaders(c),
    acceptStatus: [503],
  })

export const listModels = (c: RuntimeConfig) =>
  call(c, url(c.MEM_EMBEDDING_URL, '/v1/models'), embeddingHeaders(c), ModelsBody)

export const embed = (c: RuntimeConfig, model: string, input: string[]) =>
  call(c, url(c.MEM_EMBEDDING_URL, '/v1/embeddings'), embeddingHeaders(c), EmbeddingsBody, {
    method: 'POST',
    json: { model, input },
  })

const collectionPath = (c: RuntimeConfig, rest = '') =>
  url(c.MEM_VECTOR_STORE_URL, `/collections/${encodeURIComponent(c.MEM_COLLECTION)}${rest}`)

/** 404 is an answer here: the collection does not exist (body null). */
export async function getCollection(c: RuntimeConfig): Promise<Answer<Static<typeof CollectionBody> | null>> {
  const res = await call(c, collectionPath(c), qdrantHeaders(c), CollectionBody, { acceptStatus: [404] })
  return res.ok && res.status === 404 ? { ok: true, body: null } : res
}

export const listCollections = (c: RuntimeConfig) =>
  call(c, url(c.MEM_VECTOR_STORE_URL, '/collections'), qdrantHeaders(c), CollectionsBody)

export const createCollection = (c: RuntimeConfig, size: number, distance: Distance) =>
  call(c, collectionPath(c), qdrantHeaders(c), Acknowledged, {
    method: 'PUT',
    json: { vectors: { size, distance } },
  })

export const upsertPoints = (
  c: RuntimeConfig,
  points: { id: string; vector: number[]; payload: Record<string, unknown> }[],
) =>
  call(c, collectionPath(c, '/points?wait=true'), qdrantHeaders(c), Acknowledged, {
    method: 'PUT',
    json: { points },
  })

export const searchPoints = (c: RuntimeConfig, vector: number[], limit: number) =>
  call(c, collectionPath(c, '/points/search'), qdrantHeaders(c), SearchBody, {
    method: 'POST',
    json: { vector, limit, with_payload: true },
  })

export const deletePoints = (c: RuntimeConfig, ids: string[]) =>
  call(c, collectionPath(c, '/points/delete?wait=true'), qdrantHeaders(c), Acknowledged, {
    method: 'POST',
    json: { points: ids },
  })

export const listSnapshots = (c: RuntimeConfig, name: string) =>
  call(
    c,
    url(c.MEM_VECTOR_STORE_URL, `/collections/${encodeURIComponent(name)}/snapshots`),
    qdrantHeaders(c),
    SnapshotsBody,
  )

/** Qdrant's `{result, status, time}` acknowledgements: any 2xx body will do. */
const Acknowledged = T.Unknown()
const SnapshotsBody = T.Object(
  { result: T.Array(T.Object({ name: T.String() }, { additionalProperties: true })) },
  { additionalProperties: true },
)

/** What the embedding runtime says about the model MEM uses: which one, and its real dimension. */
export interface ModelProbe {
  readyz: Observation
  models: Answer<Static<typeof ModelsBody>>
  model: string | null
  dimension: Answer<number>
}

const PROBE_TEXT = 'memory stack dimension probe'

export async function probeModel(c: RuntimeConfig): Promise<ModelProbe> {
  const [ready, models] = await Promise.all([readyz(c), listModels(c)])
  const model = c.MEM_EMBEDDING_MODEL ?? (models.ok ? (models.body.data[0]?.id ?? null) : null)
  if (!model) {
    const observation: Observation = models.ok
      ? {
          url: null,
          ok: false,
          status: null,
          failure: 'bad_body',
          message: 'the runtime lists no model',
          body: null,
        }
      : models.observation
    return { readyz: ready, models, model: null, dimension: { ok: false, observation } }
  }
  const e = await embed(c, model, [PROBE_TEXT])
  const dimension: Answer<number> = e.ok ? { ok: true, body: e.body.data[0]?.embedding.length ?? 0 } : e
  return { readyz: ready, models, model, dimension }
}
