/**
 * What the registry knows of a unit without loading its code: enough for `svc units`, the suite's
 * port plan and `svc probe`. The unit's definition spreads the same object, so they cannot differ.
 */
export interface UnitMeta {
  name: string
  title: string
  port: number
  liveness: string
  /** The readiness route (`svc suite status`, orchestrators' readiness probes); defaults to liveness. */
  readiness?: string
}

export const unitMeta = <const M extends UnitMeta>(meta: M): M => meta
