import { unitMeta } from '../../common/unit-meta.ts'

export const meta = unitMeta({
  name: 'rms',
  title: 'runtime management service',
  port: 18086,
  liveness: '/health',
  readiness: '/ready',
})
