import type { Logger } from '../../../common/logger.ts'
import type { Storage } from '../../../db/storage.ts'
import type { ErpBackend } from './erp.ts'

/** What EIS's services need; read once at start-up (docs/units/eis.md, configuration). */
export interface EisDeps {
  storage: Storage
  log: Logger
  erp: ErpBackend
  runtimeHost: { url: string | undefined; token: string | undefined }
  supportHandoff: { url: string | undefined; token: string | undefined }
  ticketing: { baseUrl: string | undefined; token: string | undefined }
  timeoutMs: number
  approvalTtlS: number
  now: () => number
  /** Ask the dispatch outbox for a delivery pass soon. */
  kickDispatch: () => void
}
