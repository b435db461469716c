import { canonicalHash } from '../../../common/hash.ts'
import { KINDS, type ResourceKind } from '../model/host.ts'

/** How a host resource is keyed in the desired state and the drift report: `<kind>/<id>`. */
export const resourceKey = (kind: ResourceKind, id: string) => `${kind}/${id}`

/** The file of a resource, relative to the host directory. */
export function resourceFile(kind: ResourceKind, id: string): string {
  const dir = KINDS[kind].dir
  return dir === null ? 'host.json' : `${dir}/${id}.json`
}

export const docHash = (doc: unknown) => canonicalHash(doc)
