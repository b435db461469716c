/**
 * Where article and query vectors come from: an OpenAI-compatible `/v1/embeddings` runtime when
 * NDS_EMBEDDING_URL is set, else the built-in hashing embedder (rules/embed.ts).
 */
import { Type as T } from '@sinclair/typebox'
import { unavailable } from '../../../common/errors.ts'
import { callPeer } from '../../../common/peer.ts'
import { BUILTIN_MODEL, EMBED_DIMS, embedText, normalize } from '../rules/embed.ts'

export interface Embedder {
  model: string
  dims: number
  /** Where the vectors come from, for /v1/health/info (no credentials). */
  target: string
  embed(texts: string[]): Promise<Float32Array[]>
}

export const builtinEmbedder: Embedder = {
  model: BUILTIN_MODEL,
  dims: EMBED_DIMS,
  target: 'built-in',
  embed: async (texts) => texts.map(embedText),
}

const EmbeddingsAnswer = T.Object({
  data: T.Array(T.Object({ index: T.Integer({ minimum: 0 }), embedding: T.Array(T.Number()) })),
})

export const EMBEDDING_BATCH = 64

export function remoteEmbedder(opts: {
  url: string
  model: string
  dims: number
  apiKey?: string
  timeoutMs: number
}): Embedder {
  const endpoint = `${opts.url.replace(/\/+$/, '')}/v1/embeddings`
  return {
    model: opts.model,
    dims: opts.dims,
    target: new URL(opts.url).origin,
    async embed(texts) {
      const out: Float32Array[] = []
      for (let i = 0; i < texts.length; i += EMBEDDING_BATCH) {
        const input = texts.slice(i, i + EMBEDDING_BATCH)
        const res = await callPeer({
          url: endpoint,
          method: 'POST',
          json: { model: opts.model, input },
          headers: opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {},
          timeoutMs: opts.timeoutMs,
          schema: EmbeddingsAnswer,
        })
        if (!res.ok)
          throw unavailable('embedding_runtime_unavailable', `The embedding runtime failed: ${res.message}.`)
        const sorted = [...res.body.data].sort((a, b) => a.index - b.index)
        if (sorted.length !== input.length || sorted.some((d) => d.embedding.length !== opts.dims)) {
          throw unavailable(
            'embedding_runtime_unavailable',
            `The embedding runtime did not return ${input.length} vectors of ${opts.dims} dimensions.`,
          )
        }
        for (const d of sorted) out.push(normalize(Float32Array.from(d.embedding)))
      }
      return out
    },
  }
}
