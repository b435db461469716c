import { unitMeta } from '../../common/unit-meta.ts'

export const meta = unitMeta({
  name: 'web',
  title: 'public website runtime',
  port: 18080,
  liveness: '/health',
  readiness: '/ready',
})
