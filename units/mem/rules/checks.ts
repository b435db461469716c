/** MEM's verdicts, judged from what its peers answered (no I/O here). */
import type { Static } from '@sinclair/typebox'
import { type Check, noAnswerReason, noAnswerVerdict } from '../../../common/cli.ts'
import type { CollectionBody, Distance } from '../model.ts'
import type { Answer, ModelProbe } from '../service/runtime.ts'

type Collection = Static<typeof CollectionBody> | null

export const unanswered = (
  name: string,
  a: { ok: false; observation: import('../../../common/cli.ts').Observation },
  what: string,
): Check => ({
  name,
  status: noAnswerVerdict(a.observation),
  reason: noAnswerReason(a.observation, what),
})

export function modelChecks(p: ModelProbe, configuredModel: string | undefined): Check[] {
  const ready: Check = !p.readyz.ok
    ? {
        name: 'embedding.readyz',
        status: noAnswerVerdict(p.readyz),
        reason: noAnswerReason(p.readyz, 'GET /readyz'),
      }
    : p.readyz.status === 200
      ? { name: 'embedding.readyz', status: 'passed', reason: 'GET /readyz answered 200' }
      : {
          name: 'embedding.readyz',
          status: 'failed',
          reason: `GET /readyz answered ${p.readyz.status}: not ready`,
        }
  const ids = p.models.ok ? p.models.body.data.map((m) => m.id) : []
  const models: Check = !p.models.ok
    ? unanswered('embedding.models', p.models, 'GET /v1/models')
    : configuredModel && !ids.includes(configuredModel)
      ? {
          name: 'embedding.models',
          status: 'failed',
          reason: `MEM_EMBEDDING_MODEL ${configuredModel} is not among [${ids}]`,
        }
      : ids.length === 0
        ? { name: 'embedding.models', status: 'failed', reason: 'the runtime lists no model' }
        : {
            name: 'embedding.models',
            status: 'passed',
            reason: `model ${p.model} (${configuredModel ? 'configured' : 'first listed'}) of [${ids.join(', ')}]`,
          }
  const dimension: Check = p.dimension.ok
    ? {
        name: 'embedding.dimension',
        status: 'passed',
        reason: `a real embedding from ${p.model} has ${p.dimension.body} dimensions`,
      }
    : unanswered('embedding.dimension', p.dimension, 'POST /v1/embeddings')
  return [ready, models, dimension]
}

export interface Expectation {
  /** The model's real dimension, when the embedding runtime answered. */
  modelDimension: Answer<number> | null
  configuredSize: number | undefined
  distance: Distance
}

/**
 * The check that matters most: the collection's vector size and distance against the model's
 * dimension and the configured distance. A mismatch means every upsert or search will fail.
 */
export function compatibility(name: string, collection: Collection, e: Expectation): Check {
  const check = 'vector_store.compatibility'
  if (collection === null)
    return {
      name: check,
      status: 'failed',
      reason: `collection ${name} does not exist: run 'svc mem install'`,
    }
  const { size, distance } = collection.result.config.params.vectors
  const problems: string[] = []
  if (distance !== e.distance) problems.push(`distance ${distance}, configured ${e.distance}`)
  if (e.configuredSize !== undefined && size !== e.configuredSize)
    problems.push(`size ${size}, MEM_VECTOR_SIZE ${e.configuredSize}`)
  const model = e.modelDimension
  if (model?.ok && size !== model.body) problems.push(`size ${size}, the model produces ${model.body}`)
  if (problems.length > 0)
    return {
      name: check,
      status: 'failed',
      reason: `INCOMPATIBLE: collection ${name} has ${problems.join('; ')}: upserts and searches will be refused; recreate the collection or change the model`,
      details: {
        collection: { size, distance },
        model_dimension: model?.ok ? model.body : null,
        distance: e.distance,
      },
    }
  if (model && !model.ok)
    return {
      name: check,
      status: 'unknown',
      reason: `collection ${name} is ${size}/${distance}; the model's dimension is unknown (${model.observation.message})`,
    }
  if (!model && e.configuredSize === undefined)
    return {
      name: check,
      status: 'unknown',
      reason: `collection ${name} is ${size}/${distance}; no expected dimension: set MEM_EMBEDDING_URL or MEM_VECTOR_SIZE`,
    }
  return {
    name: check,
    status: 'passed',
    reason: `COMPATIBLE: collection ${name} is ${size}/${distance}, the model produces ${model?.ok ? model.body : e.configuredSize} with ${e.distance}`,
  }
}

export function collectionCheck(name: string, c: Answer<Collection>): Check {
  if (!c.ok) return unanswered('vector_store.collection', c, `collection ${name}`)
  return c.body === null
    ? {
        name: 'vector_store.collection',
        status: 'failed',
        reason: `collection ${name} does not exist: run 'svc mem install'`,
      }
    : {
        name: 'vector_store.collection',
        status: 'passed',
        reason: `collection ${name} exists (${c.body.result.points_count ?? 0} points)`,
      }
}
