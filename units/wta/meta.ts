import { unitMeta } from '../../common/unit-meta.ts'

export const meta = unitMeta({
  name: 'wta',
  title: 'workflow-tooling API',
  port: 18090,
  liveness: '/api/v1/health',
})
