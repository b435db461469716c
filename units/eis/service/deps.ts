import type { Logger } from '../../../common/logger.ts'
import type { Db } from '../../../db/sqlite.ts'
import type { ErpBackend } from './erp.ts'

/** What EIS's services need; read once at start-up (docs/units/eis.md, configuration). */
export interface EisDeps {
  db: Db
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
