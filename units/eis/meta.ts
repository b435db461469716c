import { unitMeta } from '../../common/unit-meta.ts'

export const meta = unitMeta({
  name: 'eis',
  title: 'ERP integration service',
  port: 18088,
  liveness: '/healthz',
})
