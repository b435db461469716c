import { unitMeta } from '../../common/unit-meta.ts'

export const meta = unitMeta({
  name: 'als',
  title: 'adaptive-learning service',
  port: 18096,
  liveness: '/health',
  readiness: '/ready',
})
